# bash completion for harmony-tools(1)                     -*- shell-script -*-
# Self-contained: needs bash only, not the bash-completion package.

_harmony_tools()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev= opt= cmd= i w
	local commands='render convert calls result'
	local opts='--call-id= --check= --from= -h --help --name= --namespace=
	    --pretty -q --quiet --to= -V --version'
	local shapes='chat responses mcp anthropic harmony'
	commands="$commands validate"
	opts="$opts --schema="
	opts="$opts --schema-dir= --strict"
	opts="$opts --formats="
	commands="$commands grammar"
	opts="$opts --builtin= --no-analysis --tool-choice="
	local forms='ebnf gbnf lark structural-tag' dialects='harmony chat responses anthropic'


	COMPREPLY=()
	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD-1]}
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		case $w in
		--schema|--schema-dir|--formats)
			[[ ${COMP_WORDS[i+1]} == = ]] && ((i++))
			((i++)) ;;
		--call-id|--check|--from|--name|--namespace|--to|--builtin|--tool-choice)
			[[ ${COMP_WORDS[i+1]} == = ]] && ((i++))
			((i++)) ;;
		-*) ;;
		*) cmd=$w; break ;;
		esac
	done
	if [[ $cur == = ]]; then
		opt=$prev
		cur=
	elif [[ $prev == = ]] && ((COMP_CWORD > 1)); then
		opt=${COMP_WORDS[COMP_CWORD-2]}
	else
		opt=$prev
	fi

	case $opt in
	--from)
		[[ $cmd == grammar ]] && shapes=$dialects
		COMPREPLY=($(compgen -W "auto $shapes" -- "$cur"))
		return 0 ;;
	--to)
		[[ $cmd == grammar ]] && shapes=$forms
		COMPREPLY=($(compgen -W "$shapes" -- "$cur"))
		return 0 ;;
	--builtin)
		COMPREPLY=($(compgen -W "browser python browser,python" -- "$cur"))
		return 0 ;;
	--tool-choice)
		COMPREPLY=($(compgen -W "auto none required" -- "$cur"))
		return 0 ;;
	--schema)
		compopt -o filenames
		COMPREPLY=($(compgen -f -- "$cur"))
		return 0 ;;
	--schema-dir)
		return 0 ;;
	--formats)
		COMPREPLY=($(compgen -W "assert annotate draft" -- "$cur"))
		return 0 ;;
	--check)
		compopt -o filenames
		COMPREPLY=($(compgen -f -- "$cur"))
		return 0 ;;
	--call-id|--name|--namespace)
		return 0 ;;
	esac

	case $cur in
	-*)
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		[[ ${COMPREPLY[*]} == *= ]] && compopt -o nospace
		return 0 ;;
	esac
	if [[ -z $cmd ]]; then
		COMPREPLY=($(compgen -W "$commands" -- "$cur"))
	else
		compopt -o filenames
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
	return 0
}
complete -F _harmony_tools harmony-tools
