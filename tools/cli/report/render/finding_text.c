/* The phrases every kind of finding says alike (finding_text.h). */
#include "finding_text.h"
#include "escape.h"

#include <stdio.h>

/* 2553 -> "2,553". */
const char *finding_grouped(size_t v, char buf[32])
{
    char digits[24];
    int n = snprintf(digits, sizeof digits, "%zu", v), o = 0;
    for (int i = 0; i < n; i++) {
        if (i && (n - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return buf;
}

/* "8.0 s", "42.0 ms", "200.0 us". */
const char *finding_duration(double us, char buf[32])
{
    if (us >= 1e6)
        snprintf(buf, 32, "%.1f s", us / 1e6);
    else if (us >= 1e3)
        snprintf(buf, 32, "%.1f ms", us / 1e3);
    else
        snprintf(buf, 32, "%.1f us", us);
    return buf;
}

/* " (host h, pid p)" for the culprit's process, when known. */
void finding_process(const struct rank_file *f, FILE *out)
{
    char host[SHOWN_MAX];
    if (f)
        fprintf(out, " (host %s, pid %lld)", shown(f->host, host), f->pid);
}

/* " on host H" where the culprit's host is known. */
void finding_on_host(const struct finding *f, FILE *out)
{
    char host[SHOWN_MAX];
    if (f->file)
        fprintf(out, " on host %s", shown(f->file->host, host));
}

/* "--pid P" where the culprit's process is known, else "--pid <pid>". */
void finding_pid(const struct finding *f, FILE *out)
{
    if (f->file)
        fprintf(out, "%lld", f->file->pid);
    else
        fputs("<pid>", out);
}
