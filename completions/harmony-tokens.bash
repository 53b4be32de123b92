# bash completion for harmony-tokens(1)                    -*- shell-script -*-
# Self-contained: needs bash only, not the bash-completion package.

_harmony_tokens()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev= opt= cmd= i w
	local commands='encode decode inspect count specials diff'
	local opts='--color= --context= --from= -h --help --key= --lines --lossy
	    --no-special --prefix -q --quiet --stop --stop-actions --to= -V --version'

	COMPREPLY=()
	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD-1]}

	# The command is the first operand; the value of a separate-word
	# option argument (--to json) is not one.
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		case $w in
		--color|--context|--from|--key|--to)
			[[ ${COMP_WORDS[i+1]} == = ]] && ((i++))
			((i++))
			;;
		--)
			cmd=${COMP_WORDS[i+1]}
			break
			;;
		-*) ;;
		*)
			cmd=$w
			break
			;;
		esac
	done

	# Readline splits "--to=js" into "--to" "=" "js".
	if [[ $cur == = ]]; then
		opt=$prev
		cur=
	elif [[ $prev == = ]] && ((COMP_CWORD > 1)); then
		opt=${COMP_WORDS[COMP_CWORD-2]}
	else
		opt=$prev
	fi

	case $opt in
	--color)
		COMPREPLY=($(compgen -W 'auto always never' -- "$cur"))
		return 0
		;;
	--from)
		COMPREPLY=($(compgen -W 'text ids auto' -- "$cur"))
		return 0
		;;
	--context|--key)
		# a number, a field name: nothing to offer
		return 0
		;;
	--to)
		case $cmd in
		encode) w='ids json lines' ;;
		decode) w='text json' ;;
		inspect) w='table json html' ;;
		diff) w='text json html' ;;
		*) w='ids json lines table text html' ;;
		esac
		COMPREPLY=($(compgen -W "$w" -- "$cur"))
		return 0
		;;
	esac

	case $cur in
	-*)
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		[[ ${COMPREPLY[*]} == *= ]] && compopt -o nospace
		return 0
		;;
	esac

	if [[ -z $cmd ]]; then
		COMPREPLY=($(compgen -W "$commands" -- "$cur"))
	elif [[ $cmd != specials ]]; then
		compopt -o filenames
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
	return 0
}
complete -F _harmony_tokens harmony-tokens
