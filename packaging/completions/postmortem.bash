# bash completion for postmortem(1): subcommands, their flags, report ids
# from `postmortem list` where a REPORT goes, and files.  Checked against
# every command's --help by tests/install/check_completions.py.

_postmortem_ids()
{
	postmortem list 2>/dev/null | awk 'NR > 1 { print $1 }'
}

_postmortem()
{
	local cur prev cmd i
	COMPREPLY=()
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	cmd=
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-*) ;;
		*) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done
	if [[ -z $cmd ]]; then
		COMPREPLY=($(compgen -W "convert explain symbolicate symbols list show run stats upload system version help --help --version -v" -- "$cur"))
		return
	fi
	# After `run [options] PROG`, the words are PROG's own.
	if [[ $cmd == run ]]; then
		for ((i = i + 1; i < COMP_CWORD; i++)); do
			case ${COMP_WORDS[i]} in
			--) ;;
			-d | --dir) ((i++)) ;;
			-*) ;;
			*) COMPREPLY=($(compgen -f -- "$cur")); return ;;
			esac
		done
	fi
	local flags
	case $cmd in
	convert) flags="-o --output -t --to --exe --sysroot -h --help" ;;
	explain) flags="-d --dir -j --json --debug-dir --debuginfod --no-debuginfod -n --no-symbolicate --exe --sysroot
	                -h --help" ;;
	symbolicate) flags="-d --debug-dir --debuginfod --no-debuginfod -o --output -t --to --exe --sysroot -h --help" ;;
	symbols) flags="-b --build-id --debuginfod --no-debuginfod -o --output -h --help" ;;
	list) flags="-d --dir -j --json -g --group -S --since -U --until -a --app -h --help" ;;
	show) flags="-d --dir -j --json -h --help" ;;
	run) flags="-d --dir -j --json -h --help" ;;
	stats) flags="-d --dir -j --json -h --help" ;;
	upload) flags="-d --dir -u --url --dsn -H --header --allow-http --insecure --ca-file --timeout-ms
	               --deadline-ms --attempts --no-gzip --symbolicate --environment --fingerprint-signature -h --help" ;;
	system) flags="--state-dir --handler --dsn --environment --upload-private --no-dsn -h --help" ;;
	*) return ;;
	esac
	case $prev in
	-t | --to) COMPREPLY=($(compgen -W "crash json" -- "$cur")); return ;;
	-b | --build-id) return ;;
	-d | --dir | --debug-dir | --state-dir | --sysroot) COMPREPLY=($(compgen -d -- "$cur")); return ;;
	-o | --output | --ca-file | --exe | --handler) COMPREPLY=($(compgen -f -- "$cur")); return ;;
	-u | --url | --dsn | -H | --header | --timeout-ms | --deadline-ms | --attempts | --debuginfod | --environment)
		return ;;
	-S | --since | -U | --until | -a | --app) return ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$flags" -- "$cur"))
	elif [[ $cmd == symbols && $prev == symbols ]]; then
		COMPREPLY=($(compgen -W "build" -- "$cur"))
	elif [[ $cmd == system ]]; then
		COMPREPLY=($(compgen -W "enable disable status" -- "$cur"))
	elif [[ $cmd == explain || $cmd == convert || $cmd == symbolicate || $cmd == show ]]; then
		COMPREPLY=($(compgen -W "$(_postmortem_ids)" -- "$cur") $(compgen -f -- "$cur"))
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}
complete -o filenames -F _postmortem postmortem
