#!/bin/bash
# test_procs_wait.sh with the tasks read from /proc (--no-bpf), not by the
# kernel's task walk: both ways must give the same figures.
# suite-budget: 15
# suite-alone: it turns kernel.task_delayacct on (a setting of the whole machine) and checks it is put back
PROCS_FROM_PROC=1 exec "$(dirname "$0")/test_procs_wait.sh"
