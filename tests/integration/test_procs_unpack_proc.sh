#!/bin/bash
# test_procs_unpack.sh with the tasks read from /proc (--no-bpf), not by the
# kernel's task walk: both ways must give the same figures.
# suite-budget: 10
PROCS_FROM_PROC=1 exec "$(dirname "$0")/test_procs_unpack.sh"
