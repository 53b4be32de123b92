# bash completion for harmony-render(1)                    -*- shell-script -*-
# Self-contained: needs bash only, not the bash-completion package.

_harmony_render()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev= opt=
	local opts='--builtin= --continue --date= --from= -h --header-order= --help --identity= --keep-analysis
	    --knowledge-cutoff= --lines --mode= --next-role= --pretty -q --quiet
	    --reasoning-effort= --store= --to= -V --version'

	COMPREPLY=()
	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD-1]}
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
	--builtin)
		COMPREPLY=($(compgen -W 'browser python browser,python' -- "$cur"))
		return 0 ;;
	--date)
		COMPREPLY=($(compgen -W 'today' -- "$cur"))
		return 0 ;;
	--from)
		COMPREPLY=($(compgen -W 'auto harmony chat responses anthropic' -- "$cur"))
		return 0 ;;
	--header-order)
		COMPREPLY=($(compgen -W 'reference model' -- "$cur"))
		return 0 ;;
	--mode)
		COMPREPLY=($(compgen -W 'completion conversation training' -- "$cur"))
		return 0 ;;
	--next-role)
		COMPREPLY=($(compgen -W 'assistant user system developer tool' -- "$cur"))
		return 0 ;;
	--reasoning-effort)
		COMPREPLY=($(compgen -W 'low medium high' -- "$cur"))
		return 0 ;;
	--store)
		compopt -o filenames
		COMPREPLY=($(compgen -d -- "$cur"))
		return 0 ;;
	--to)
		COMPREPLY=($(compgen -W 'ids json text harmony html' -- "$cur"))
		return 0 ;;
	--identity|--knowledge-cutoff)
		return 0 ;;
	esac

	case $cur in
	-*)
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		[[ ${COMPREPLY[*]} == *= ]] && compopt -o nospace
		return 0 ;;
	esac
	compopt -o filenames
	COMPREPLY=($(compgen -f -- "$cur"))
	return 0
}
complete -F _harmony_render harmony-render
