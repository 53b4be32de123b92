# bash completion for harmony-parse(1)                     -*- shell-script -*-
# Self-contained: needs bash only, not the bash-completion package.

_harmony_parse()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev= opt=
	local opts='--channels= --color= --continue= --expect-bytes= --expect-lines= --field=
	    --from= -h --help --ids= --lines --marker= --merge --pretty -q --quiet
	    --reasoning-field= --role= --schema= --store= --strict --summary --to= --tool-choice= -V
	    --version --warnings= --with-tokens --schema-dir= --schema-strict --formats='

	COMPREPLY=()
	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD-1]}
	# Readline splits "--to=ch" into "--to" "=" "ch".
	if [[ $cur == = ]]; then
		opt=$prev
		cur=
	elif [[ $prev == = ]] && ((COMP_CWORD > 1)); then
		opt=${COMP_WORDS[COMP_CWORD-2]}
	else
		opt=$prev
	fi
	case $opt in
	--schema)
		compopt -o filenames
		COMPREPLY=($(compgen -f -- "$cur"))
		return 0
		;;
	--tool-choice)
		COMPREPLY=($(compgen -W 'auto none required record' -- "$cur"))
		return 0
		;;
	--store)
		compopt -o filenames
		COMPREPLY=($(compgen -d -- "$cur"))
		return 0
		;;
	--channels)
		COMPREPLY=($(compgen -W 'analysis commentary final none' -- "$cur"))
		return 0
		;;
	--color)
		COMPREPLY=($(compgen -W 'auto always never' -- "$cur"))
		return 0
		;;
	--continue)
		COMPREPLY=($(compgen -W 'final analysis commentary none' -- "$cur"))
		return 0
		;;
	--from)
		COMPREPLY=($(compgen -W 'ids text auto' -- "$cur"))
		return 0
		;;
	--ids)
		COMPREPLY=($(compgen -W 'deterministic random' -- "$cur"))
		return 0
		;;
	--reasoning-field)
		COMPREPLY=($(compgen -W 'reasoning_content reasoning' -- "$cur"))
		return 0
		;;
	--role)
		COMPREPLY=($(compgen -W 'auto none assistant user system developer tool' -- "$cur"))
		return 0
		;;
	--to)
		COMPREPLY=($(compgen -W 'messages events chat chat-completion chat-stream responses
		    responses-stream anthropic anthropic-stream answer text stats metrics html report' \
		    -- "$cur"))
		return 0
		;;
	--warnings)
		COMPREPLY=($(compgen -W 'all summary none' -- "$cur"))
		return 0
		;;
	--formats)
		COMPREPLY=($(compgen -W 'assert annotate draft' -- "$cur"))
		return 0
		;;
	--schema-dir)
		return 0
		;;
	--marker|--field|--expect-bytes|--expect-lines)
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
	compopt -o filenames
	COMPREPLY=($(compgen -f -- "$cur"))
	return 0
}
complete -F _harmony_parse harmony-parse
