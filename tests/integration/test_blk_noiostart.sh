#!/bin/bash
# A kernel without the block_io_start tracepoint (before 6.5), simulated by
# a test build that turns that program off (make test-builds): the owner of
# each request then comes from block_rq_insert, and the figures of
# test_blk_fio.sh must still hold, on mq-deadline so that requests really
# pass through the insert.
# suite-budget: 25
# suite-alone: it compares fio's read count with the block layer's, two readings a few ms apart: beside another test (two busy cores) a reading took long enough for fio's reads in between to pass the 2 % bound
. "$(dirname "$0")/../lib/common.sh"
need_root
[ -x "$TOP/build/noiostart/iosched-top" ] || skip "no test build without block_io_start (BPF not built)"
IOSCHED_BIN=$TOP/build/noiostart/iosched-top BLK_OWNER=block_rq_insert BLK_SCHED=mq-deadline \
	exec "$(dirname "$0")/test_blk_fio.sh"
