# extract.awk - read what the doc tests compare out of --help text and
# man(7) pages.  Run under LC_ALL=C (bytes in, bytes out):
#
#   LC_ALL=C awk -v mode=help     -f tests/lib/extract.awk   < help.txt
#   LC_ALL=C awk -v mode=options  -f tests/lib/extract.awk   man/X.1
#   LC_ALL=C awk -v mode=commands -f tests/lib/extract.awk   man/X.1
#   LC_ALL=C awk -v mode=sections -f tests/lib/extract.awk   man/X.1
#   LC_ALL=C awk -v mode=th       -f tests/lib/extract.awk   man/X.1
#   LC_ALL=C awk -v mode=examples -f tests/lib/extract.awk   man/X.1
#   LC_ALL=C awk -v mode=synopsis -v name=X -f tests/lib/extract.awk man/X.1
#
# help:     the options named at the start of option lines (a line whose
#           first non-blank character is '-'), one a line.
# options:  the options named in the tags (.TP/.TQ next line, .IP first
#           argument) of the OPTIONS section, one a line.
# commands: the first word of the tags (.TP/.TQ next line), or of the
#           .SS headings, of the COMMANDS section, one a line.
# sections: the .SH headings, one a line.
# th:       the .TH arguments, one a line.
# synopsis: the forms of the SYNOPSIS section as plain text, one a line,
#           blanks squeezed; a form starts at a .B or .SY line naming the
#           program `name`.
# examples: the commands of every .EX/.EE block whose first line starts
#           with "$ ", each as
#               E <line number of the command in FILE>
#               C <command>          (one C line per command line)
#               O <expected output>  (one O line per output line)
#           A command line ending in a backslash, "|", "&&" or "||" goes
#           on in the next line, which starts with the "> " prompt.
#
# Roff escapes are decoded; one this script does not know is an error
# (exit 1, "FILE:LINE: ..." on stderr) rather than a silent guess.

function fail(msg) {
	printf "%s:%d: %s\n", FILENAME == "" ? "-" : FILENAME, FNR, msg > "/dev/stderr"
	failed = 1
	exit 1
}

function utf8(cp,    s) {
	if (cp < 128)
		return sprintf("%c", cp)
	if (cp < 2048)
		return sprintf("%c%c", 192 + int(cp / 64), 128 + cp % 64)
	if (cp < 65536)
		return sprintf("%c%c%c", 224 + int(cp / 4096),
		    128 + int(cp / 64) % 64, 128 + cp % 64)
	return sprintf("%c%c%c%c", 240 + int(cp / 262144),
	    128 + int(cp / 4096) % 64, 128 + int(cp / 64) % 64, 128 + cp % 64)
}

function hexval(h,    i, n, d) {
	n = 0
	for (i = 1; i <= length(h); i++) {
		d = index("0123456789ABCDEF", toupper(substr(h, i, 1)))
		if (d == 0)
			fail("bad hex digits in \\[u" h "]")
		n = n * 16 + d - 1
	}
	return n
}

# The named glyphs a man page may reasonably use in commands and output.
function glyph(name) {
	if (name in GLYPH)
		return GLYPH[name]
	if (name ~ /^u[0-9A-Fa-f][0-9A-Fa-f][0-9A-Fa-f][0-9A-Fa-f]+$/)
		return utf8(hexval(substr(name, 2)))
	fail("unknown special character \\[" name "]")
}

function unescape(s,    out, i, c, j, name) {
	out = ""
	while ((i = index(s, "\\")) > 0) {
		out = out substr(s, 1, i - 1)
		c = substr(s, i + 1, 1)
		s = substr(s, i + 2)
		if (c == "e" || c == "\\")
			out = out "\\"
		else if (c == "-")
			out = out "-"
		else if (c == "." || c == "'")
			out = out c
		else if (c == "&" || c == "|" || c == "^" || c == ")")
			;
		else if (c == " " || c == "~" || c == "0")
			out = out " "
		else if (c == "\"") {
			s = ""
		} else if (c == "(") {
			if (length(s) < 2)
				fail("truncated \\( escape")
			out = out glyph(substr(s, 1, 2))
			s = substr(s, 3)
		} else if (c == "[") {
			j = index(s, "]")
			if (j == 0)
				fail("unterminated \\[ escape")
			out = out glyph(substr(s, 1, j - 1))
			s = substr(s, j + 1)
		} else if (c == "f") {
			c = substr(s, 1, 1)
			if (c == "(")
				s = substr(s, 4)
			else if (c == "[") {
				j = index(s, "]")
				if (j == 0)
					fail("unterminated \\f[ escape")
				s = substr(s, j + 1)
			} else if (c ~ /^[BIRP1-4]$/)
				s = substr(s, 2)
			else
				fail("unknown font escape \\f" c)
		} else if (c == "")
			fail("backslash at the end of a line (use \\e)")
		else
			fail("unsupported escape \\" c)
	}
	return out s
}

# Split the arguments of a macro line the way roff does: blanks separate,
# double quotes group, "" inside quotes is one quote.
function margs(line, a,    n, c, cur, inq, have) {
	n = 0
	cur = ""
	inq = 0
	have = 0
	while (line != "") {
		c = substr(line, 1, 1)
		line = substr(line, 2)
		if (inq) {
			if (c == "\"") {
				if (substr(line, 1, 1) == "\"") {
					cur = cur "\""
					line = substr(line, 2)
				} else
					inq = 0
			} else
				cur = cur c
		} else if (c == " " || c == "\t") {
			if (have) {
				a[++n] = cur
				cur = ""
				have = 0
			}
		} else if (c == "\"" && !have) {
			inq = 1
			have = 1
		} else {
			cur = cur c
			have = 1
		}
	}
	if (inq)
		fail("unterminated quote in macro arguments")
	if (have)
		a[++n] = cur
	return n
}

# The text a line shows: font macros are flattened, text lines unescaped.
function linetext(line,    a, n, i, m, out, sep) {
	if (line !~ /^[.']/)
		return unescape(line)
	m = line
	sub(/^[.'][ \t]*/, "", m)
	sub(/[ \t].*$/, "", m)
	line = substr(line, index(line, m) + length(m))
	n = margs(line, a)
	if (m == "B" || m == "I" || m == "SM" || m == "SB")
		sep = " "
	else if (m ~ /^(BR|RB|BI|IB|IR|RI)$/)
		sep = ""
	else
		fail("cannot take text from request ." m)
	out = ""
	for (i = 1; i <= n; i++)
		out = out (i > 1 ? sep : "") unescape(a[i])
	return out
}

# Print the options named in text t: "-x" and "--long-name", each at the
# start or after a blank, comma, '[' or '|'; "=ARG" and the like end it.
function printopts(t,    rest) {
	rest = " " t
	while (match(rest, /[ \t,[|]--?[A-Za-z0-9][-A-Za-z0-9]*/)) {
		print substr(rest, RSTART + 1, RLENGTH - 1)
		rest = substr(rest, RSTART + RLENGTH)
	}
}

function synprint(f) {
	gsub(/[ \t]+/, " ", f)
	sub(/^ /, "", f)
	sub(/ $/, "", f)
	print f
}

function request(line,    m) {
	m = line
	sub(/^[.'][ \t]*/, "", m)
	sub(/[ \t].*$/, "", m)
	return m
}

BEGIN {
	if (mode !~ /^(help|options|commands|sections|th|examples|synopsis)$/) {
		print "extract.awk: mode must be help, options, commands, sections, th, examples or synopsis" > "/dev/stderr"
		failed = 1
		exit 2
	}
	GLYPH["aq"] = "'"
	GLYPH["dq"] = "\""
	GLYPH["ga"] = "`"
	GLYPH["ti"] = "~"
	GLYPH["ha"] = "^"
	GLYPH["rs"] = "\\"
	GLYPH["lq"] = utf8(8220)
	GLYPH["rq"] = utf8(8221)
	GLYPH["oq"] = utf8(8216)
	GLYPH["cq"] = utf8(8217)
	GLYPH["em"] = utf8(8212)
	GLYPH["en"] = utf8(8211)
	GLYPH["bu"] = utf8(8226)
	GLYPH["co"] = utf8(169)
	GLYPH["->"] = utf8(8594)
	GLYPH["<-"] = utf8(8592)
	GLYPH["tm"] = utf8(8482)
	section = ""
	tag = 0
	inex = 0
}

mode == "help" {
	line = $0
	sub(/^[ \t]+/, "", line)
	if (line !~ /^--?[A-Za-z0-9]/)
		next
	# The option part ends where the description column starts.
	if ((i = index(line, "  ")) > 0)
		line = substr(line, 1, i - 1)
	if ((i = index(line, "\t")) > 0)
		line = substr(line, 1, i - 1)
	printopts(line)
	next
}

# Comment lines are not text anywhere.
/^[.'][ \t]*\\"/ { next }

/^[.'][ \t]*SH([ \t]|$)/ {
	if (inex)
		fail(".SH inside an .EX block")
	n = margs(substr($0, index($0, "SH") + 2), a)
	section = ""
	for (i = 1; i <= n; i++)
		section = section (i > 1 ? " " : "") unescape(a[i])
	if (mode == "sections")
		print section
	tag = 0
	next
}

mode == "th" && /^[.'][ \t]*TH([ \t]|$)/ {
	n = margs(substr($0, index($0, "TH") + 2), a)
	for (i = 1; i <= n; i++)
		print unescape(a[i])
	next
}

mode == "options" {
	if (section != "OPTIONS")
		next
	if (tag) {
		tag = 0
		printopts(linetext($0))
		next
	}
	if (/^[.'][ \t]*(TP|TQ)([ \t]|$)/) {
		tag = 1
		next
	}
	if (/^[.'][ \t]*IP([ \t]|$)/) {
		n = margs(substr($0, index($0, "IP") + 2), a)
		if (n >= 1)
			printopts(unescape(a[1]))
		next
	}
	next
}

mode == "commands" {
	if (section != "COMMANDS")
		next
	if (tag) {
		tag = 0
		t = linetext($0)
		sub(/[ \t].*/, "", t)
		if (t != "")
			print t
		next
	}
	if (/^[.'][ \t]*(TP|TQ)([ \t]|$)/)
		tag = 1
	else if (/^[.'][ \t]*SS[ \t]/) {
		# a command a subsection: its heading's first word
		t = $0
		sub(/^[.'][ \t]*SS[ \t]+/, "", t)
		gsub(/"/, "", t)
		sub(/[ \t].*/, "", t)
		if (t != "")
			print t
	}
	next
}

mode == "synopsis" {
	if (section != "SYNOPSIS")
		next
	if (/^[.'][ \t]*(PP|LP|P|br|sp|YS|in|nh|hy|ad|na|fi|nf)([ \t]|$)/)
		next
	if (/^[.'][ \t]*SY([ \t]|$)/) {
		n = margs(substr($0, index($0, "SY") + 2), a)
		t = n ? unescape(a[1]) : ""
	} else
		t = linetext($0)
	if (t == name && /^[.'][ \t]*(B|SY)([ \t]|$)/) {
		if (form != "")
			synprint(form)
		form = t
	} else if (form == "")
		fail("SYNOPSIS text before the program name: " t)
	else
		form = form " " t
	next
}

mode == "examples" {
	if (!inex) {
		if (/^[.'][ \t]*EX([ \t]|$)/) {
			inex = 1
			first = 1
			example = 0
			cont = 0
		}
		next
	}
	if (/^[.'][ \t]*EE([ \t]|$)/) {
		if (cont)
			fail("command continued past the end of the example")
		inex = 0
		next
	}
	if (/^[.']/)
		fail("request ." request($0) " inside an .EX block")
	line = unescape($0)
	if (first) {
		first = 0
		if (substr(line, 1, 2) == "$ ")
			example = 1
	}
	if (!example) {
		if (substr(line, 1, 2) == "$ ")
			fail("an example block must start with its \"$ \" command")
		next
	}
	if (cont) {
		if (substr(line, 1, 2) != "> ")
			fail("a continued command goes on in a line starting with \"> \"")
		line = substr(line, 3)
		print "C " line
	} else if (substr(line, 1, 2) == "$ ") {
		line = substr(line, 3)
		print "E " FNR
		print "C " line
	} else {
		print "O " line
		next
	}
	# As in the shell, a command goes on after an odd run of trailing
	# backslashes, a trailing pipe, && or ||.
	cont = 0
	if (match(line, /\\+$/) && RLENGTH % 2 == 1)
		cont = 1
	else if (line ~ /(\||&&)[ \t]*$/)
		cont = 1
	next
}

END {
	if (failed)
		exit 1
	if (inex)
		fail("an .EX block is not closed by .EE")
	if (mode == "synopsis" && form != "")
		synprint(form)
}
