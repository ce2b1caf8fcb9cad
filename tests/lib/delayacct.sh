# Delay accounting (kernel.task_delayacct) is shared by the tool's runs
# (src/act/sysctlhold.h): a run holds it while it keeps its file
# task_delayacct.holder.PID in DA_RECORD locked, and the last one to end
# puts back the value from before the first (kept in task_delayacct.orig).
# A change seen while such a run is alive is that run's: once a test's own
# runs have ended, any live holder is another's (a user's run of the tool,
# a guest's, another clone's). Sourced by tests/run-all.sh and common.sh.
DA_FILE=/proc/sys/kernel/task_delayacct
DA_RECORD=/run/iosched-top

# da_held_elsewhere: 0 when a live run holds delay accounting.
da_held_elsewhere() {
	local f
	for f in "$DA_RECORD"/task_delayacct.holder.*; do
		[ -f "$f" ] || continue
		{ flock -n -x 9; } 9< "$f" 2>/dev/null || return 0 # locked: its run is alive
	done
	return 1
}

# da_base: the machine's own value; while runs hold it, the one from
# before the first of them.
da_base() {
	if da_held_elsewhere && [ -r "$DA_RECORD/task_delayacct.orig" ]; then
		tr -dc 0-9 < "$DA_RECORD/task_delayacct.orig"
	else
		cat $DA_FILE 2>/dev/null
	fi
}

# da_as_before WAS: 0 when delay accounting is WAS, or another run holds it.
da_as_before() { [ "$(cat $DA_FILE 2>/dev/null)" = "$1" ] || da_held_elsewhere; }
