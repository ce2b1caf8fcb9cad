# bash completion for iosched-top                              -*- shell-script -*-
# Every option of the option table (tests/integration/test_packaging.sh
# holds this list to `iosched-top --help`), and the values that are a
# fixed set: themes, --format, --load, --sort columns, schedulers; disk
# names from /sys/block.

_iosched_top_disks()
{
	local d
	for d in /sys/block/*; do
		[[ -e $d ]] && printf '%s\n' "${d##*/}"
	done
}

_iosched_top()
{
	local cur prev
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	local opts="--batch --iterations --delay --disk --all-disks --json --csv --csv-procs --csv-cgroups --record --replay --replay-speed --prometheus-textfile --probe --no-probe --probe-rate --probe-size --probe-file --probe-file-size --seed --set --procs --threads --no-bpf --enable-delayacct --ab --ab-live --max-time --rounds --dwell --warmup --load --load-dir --load-size --format --baseline --startup --startup-runs --fresh-reads --fresh-every --restore --print-udev-rule --udev-rules-file --demo-disk --theme --no-color --big --read-only --no-mouse --sort --config --no-config --version --help -b -n -d -V -h"
	local scheds="none mq-deadline kyber bfq"
	case $prev in
	--theme)
		COMPREPLY=($(compgen -W "default light mono high-contrast colorblind stream" -- "$cur"))
		return ;;
	--format)
		COMPREPLY=($(compgen -W "text md csv json" -- "$cur"))
		return ;;
	--load)
		COMPREPLY=($(compgen -W "write fsync none" -- "$cur"))
		return ;;
	--sort)
		COMPREPLY=($(compgen -W "pid user prio read/s write/s to-disk r-calls w-calls io-wait avg-wait throttled read-lat write-lat disk command" -- "$cur"))
		return ;;
	--probe-rate)
		COMPREPLY=($(compgen -W "max 20 100" -- "$cur"))
		return ;;
	--disk|--probe)
		# a comma-separated list: complete its last name
		local head=${cur%,*} tail=${cur##*,}
		[[ $cur == *,* ]] && head="$head," || head=""
		COMPREPLY=($(compgen -P "$head" -W "$(_iosched_top_disks)" -- "$tail"))
		return ;;
	--set)
		if [[ $cur == *=* ]]; then
			COMPREPLY=($(compgen -P "${cur%%=*}=" -W "$scheds" -- "${cur#*=}"))
		else
			COMPREPLY=($(compgen -S = -W "$(_iosched_top_disks)" -- "$cur"))
			compopt -o nospace
		fi
		return ;;
	--ab | --ab-live)
		local head=${cur%,*} tail=${cur##*,}
		[[ $cur == *,* ]] && head="$head," || head=""
		COMPREPLY=($(compgen -P "$head" -W "$scheds" -- "$tail"))
		return ;;
	--record|--replay|--prometheus-textfile|--probe-file|--config|--udev-rules-file)
		COMPREPLY=($(compgen -f -- "$cur"))
		compopt -o filenames
		return ;;
	--load-dir)
		COMPREPLY=($(compgen -d -- "$cur"))
		compopt -o filenames
		return ;;
	-n|--iterations|-d|--delay|--replay-speed|--probe-size|--probe-file-size|--seed|--procs|--max-time|--rounds|--dwell|--warmup|--load-size|--startup|--startup-runs|--fresh-reads|--fresh-every)
		return ;; # a number or a command: nothing to offer
	esac
	COMPREPLY=($(compgen -W "$opts" -- "$cur"))
}
complete -F _iosched_top iosched-top
