#!/bin/sh
# The report's layout rule (docs/architecture.md): a loader never prints to
# stdout, an analysis never reads files or formats text (no printf family,
# snprintf or xasprintf included), a renderer never
# opens an input. Checked on the source, so a change that breaks the rule
# fails the suite. Usage: layout_check.sh SOURCE-DIR
set -u
report=${1:?usage: layout_check.sh SOURCE-DIR}/tools/cli/report
status=0

# forbid FOLDER WHAT REGEX: no line of FOLDER's sources matches REGEX.
forbid() {
    hits=$(grep -nE "$3" "$report/$1"/*.c "$report/$1"/*.h 2>/dev/null | grep -vE '^[^:]+:[0-9]+:\s*(/\*|\*)')
    if [ -n "$hits" ]; then
        echo "FAIL: $1/ $2:"
        echo "$hits"
        status=1
    fi
}

stdout_use='\b(printf|puts|putchar|vprintf)\s*\(|\bstdout\b'
file_input='\b(fopen|open|openat|opendir|fdopen|json_load_file|json_loadf|getline|report_load\w*|report_files|trace_read)\s*\('

forbid load "writes to stdout" "$stdout_use"
forbid analyze "writes to stdout" "$stdout_use"
forbid analyze "reads input" "$file_input"
# Names, labels and numbers as text are the renderer's: an analysis returns
# the keys (host, pid, ranks, stream, cpu) and render/ spells them.
forbid analyze "formats text" '\b(v?fprintf|v?sn?printf|v?dprintf|x?v?asprintf|strftime|fputs|fputc|putc|json_dump\w*)\s*\('
forbid render "reads input" "$file_input"

[ $status = 0 ] && echo "layout rules hold: load/ never prints, analyze/ neither reads nor formats text, render/ never reads"
exit $status
