# bash completion for ramwatch(1): its commands and each command's options
# (as its --help lists them), their values, and the pids and names of the processes ramwatchd knows
# (asked of the daemon with `ramwatch processes`; nothing when it does not
# run or does not answer within a second).

# The commands, trace's sub-commands and the options of each, as the
# ramwatch being completed says in --help, so that they never drift from
# it (an option that takes a value ends in =).  What this file knows of
# the options beyond that (their values, which take files) is checked
# against the client's table of commands (client/command-table.c) by
# test-command-table.
_ramwatch_global="--socket= --db= --help --version"
# the options whose value is a file, or a directory
_ramwatch_file_options="--socket --db --out --smaps --status --memory --save-memory --symbols --html --trace
	--output --capture --save-regions"
_ramwatch_directory_options="--proc"

_ramwatch_commands()
{
	"$1" --help 2>/dev/null | awk '/^Commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }'
}

# The sub-commands of command 2, from the usage lines of its --help (the
# lines before the first empty one).
_ramwatch_subcommands()
{
	"$1" "$2" --help 2>/dev/null |
		awk -v c="$2" '/^$/ { exit } { for (i = 1; i < NF; i++) if ($i == "ramwatch" && $(i + 1) == c) print $(i + 2) }'
}

_ramwatch_options()
{
	local program=$1 command=$2
	[[ -n $command ]] || return
	# (a sub-command is two words: "trace record")
	"$program" $command --help 2>/dev/null | awk '
		# the usage lines and the option lines, not the prose, nor another
		# command quoted in them; "--opt WORD" or "--opt a|b" takes a value
		/^Usage:/ || /^ / {
			gsub(/\047ramwatch [^\047]*\047/, "")
			s = $0
			while (match(s, /--[a-z][a-z-]*[a-z]( [A-Z][A-Z]*| [a-z]+\|)?/)) {
				o = substr(s, RSTART, RLENGTH)
				s = substr(s, RSTART + RLENGTH)
				name = o
				if (index(o, " "))
					name = substr(o, 1, index(o, " ") - 1)
				if (!(name in value))
					order[n++] = name
				value[name] = value[name] || index(o, " ")
			}
		}
		END {
			for (i = 0; i < n; i++)
				print order[i] (value[order[i]] ? "=" : "")
			print "--help"
		}'
}

# The values an option takes, where they are a short list (command 1,
# "trace-summary" for a sub-command; option 2).
_ramwatch_values()
{
	case $1:$2 in
	status:--format) echo "text json" ;;
	processes:--format | history:--format | sql:--format | oom:--format | cgroups:--format) echo "table csv json" ;;
	report:--format) echo "markdown json" ;;
	events:--format) echo "json memtrace" ;;
	diff:--format) echo "text markdown json" ;;
	processes:--sort) echo "private resident peak vram" ;;
	processes:--by) echo "cgroup unit" ;;
	top:--sort) echo "private resident peak growth vram" ;;
	trace:--layer | trace-summary:--layer) echo "backing logical physical" ;;
	trace:--sort | trace-summary:--sort) echo "retained traffic lifetime" ;;
	trace-record:--format) echo "json binary" ;;
	diff:--from) echo "first now 5min 1h" ;;
	diff:--to) echo "last now" ;;
	*:--since | *:--until) echo "now 5min 1h 1d" ;;
	*:--class) echo "images mapped_files shared malloc stacks python openblas mmgp_ram jit runtime_heap pinned_cuda
		gpu_driver cuda_uvm named other" ;;
	esac
}

# Column n (2: pid, 5: comm) of the daemon's processes, asked by program
# through the socket the command line names.
_ramwatch_processes()
{
	local program=$1 column=$2 socket=$3
	timeout 1 "$program" processes --all --format csv ${socket:+--socket "$socket"} 2>/dev/null |
		awk -F, -v c="$column" 'NR > 1 && $c != "" { print $c }' | sort -u
}

_ramwatch()
{
	local cur prev words cword
	if declare -F _init_completion >/dev/null; then
		_init_completion -n = || return
	else
		cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
		words=("${COMP_WORDS[@]}") cword=$COMP_CWORD
	fi

	# the command: the first word that is not a global option or its value
	local i command='' socket='' options value program=${words[0]}
	# the ramwatch of the command line: a path as it is, else from PATH
	[[ $program == */* ]] || program=ramwatch
	# (without bash-completion's _init_completion, "--socket=PATH" comes as
	# three words: "--socket", "=", "PATH")
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		--socket | --db)
			[[ ${words[i + 1]} == = ]] && ((i++))
			((i + 1 < cword)) && [[ ${words[i - 1]} == --socket || ${words[i]} == --socket ]] &&
				socket=${words[i + 1]}
			((i++)) ;;
		--socket=*) socket=${words[i]#--socket=} ;;
		-* | =) ;;
		*) if [[ -z $command ]]; then
			command=${words[i]}
		elif [[ $command == trace ]]; then
			command="trace ${words[i]}"
		fi ;;
		esac
	done
	[[ $command == trace && $cur != -* ]] && {
		COMPREPLY=($(compgen -W "$(_ramwatch_subcommands "$program" trace)" -- "$cur")); return; }

	# an option's value: after "--opt" or in "--opt=..."
	local option=$prev known
	known=" $(_ramwatch_options "$program" "$command") $_ramwatch_global "
	known=${known//[$'\t\n']/ }
	if [[ $cur == --*=* ]]; then
		option=${cur%%=*} value=${cur#*=}
	elif [[ $cur == = && $prev == --* ]]; then
		value=''
	elif [[ $prev == = && ${words[cword - 2]} == --* ]]; then
		option=${words[cword - 2]} value=$cur
	elif [[ $prev == --* && $known == *" $prev= "* ]]; then
		value=$cur
	else
		option=''
	fi
	if [[ -n $option ]]; then
		local list
		case $option in
		--pid) list=$(_ramwatch_processes "$program" 2 "$socket") ;;
		--name) list=$(_ramwatch_processes "$program" 5 "$socket") ;;
		*)
			if [[ " ${_ramwatch_file_options//[$'\t\n']/ } " == *" $option "* ]]; then
				COMPREPLY=($(compgen -f -- "$value"))
			elif [[ " $_ramwatch_directory_options " == *" $option "* ]]; then
				COMPREPLY=($(compgen -d -- "$value"))
			else
				list=$(_ramwatch_values "${command// /-}" "$option")
			fi ;;
		esac
		[[ -n $list ]] && COMPREPLY=($(compgen -W "$list" -- "$value"))
		return
	fi

	if [[ -z $command ]]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "$_ramwatch_global" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$(_ramwatch_commands "$program") help" -- "$cur"))
		fi
	elif [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_ramwatch_options "$program" "$command")" -- "$cur"))
	else
		case $command in
		scan) COMPREPLY=($(compgen -W "$(_ramwatch_processes "$program" 2 "$socket")" -- "$cur")) ;;
		summary | diff | "trace summary" | "trace export") COMPREPLY=($(compgen -f -- "$cur")) ;;
		"trace record") COMPREPLY=($(compgen -c -- "$cur")) ;;
		esac
	fi
	# an option that takes a value completes with "=" and no space after it
	if [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *= ]]; then
		compopt -o nospace 2>/dev/null
	fi
}

complete -F _ramwatch ramwatch
