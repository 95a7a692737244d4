#include "base/run_id.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/out_file.h"

/* FNV-1a, 64 bits, of a, b and c one after the other. */
static uint64_t hash3(const char *a, const char *b, const char *c)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (const char *s[] = { a, b, c }, **p = s; p < s + 3; p++)
        for (const unsigned char *q = (const unsigned char *)*p; *q; q++)
            h = (h ^ *q) * 0x100000001b3ull;
    return h;
}

/* a b c as one id in `out` (file-name characters). Too long for it: its
 * head, '-' and a hash of the whole, so that ids that differ only at the
 * end (a restart's .r1, the pid in an Open MPI namespace) stay apart. */
static void put_id(char *out, size_t len, const char *a, const char *b, const char *c)
{
    enum { HASH = 17 }; /* '-' and 16 hex digits */
    char raw[256];
    snprintf(raw, sizeof raw, "%s%s%s", a, b, c);
    if (strlen(a) + strlen(b) + strlen(c) < len || len <= 2 * HASH) {
        tap_out_name_part(out, len, raw);
        return;
    }
    tap_out_name_part(out, len - HASH, raw);
    size_t n = strlen(out);
    snprintf(out + n, len - n, "-%016llx", (unsigned long long)hash3(a, b, c));
}

int tap_run_id_of_launcher(char *out, size_t len, char *(*get)(const char *))
{
    static const char *const plain[] = {"PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid", "LSB_JOBID",
                                        "PBS_JOBID", "FLUX_JOB_ID"};
    const char *v;
/* torchrun without a rendezvous id says "none" */
#define SET(var) ((v = get(var)) != NULL && *v && strcmp(v, "none") != 0)
    if (SET("NCCLTAP_RUN_ID")) {
        put_id(out, len, v, "", "");
    } else if (SET("SLURM_JOB_ID")) {
        const char *step = get("SLURM_STEP_ID");
        int has_step = step && *step;
        put_id(out, len, v, has_step ? "." : "", has_step ? step : "");
    } else if (SET("TORCHELASTIC_RUN_ID")) {
        /* An elastic restart launches the workers again under the same id. */
        const char *restart = get("TORCHELASTIC_RESTART_COUNT");
        int again = restart && *restart && strcmp(restart, "0") != 0;
        put_id(out, len, v, again ? ".r" : "", again ? restart : "");
    } else {
        size_t i = 0;
        while (i < sizeof plain / sizeof plain[0] && !SET(plain[i]))
            i++;
        if (i == sizeof plain / sizeof plain[0])
            return 0;
        put_id(out, len, v, "", "");
    }
#undef SET
    return 1;
}

/* When process `pid` started, in clock ticks since boot (/proc), so that a
 * process group id reused later names another run; 0 when not known. */
static unsigned long long start_ticks(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* The fields after the command name, which may hold spaces and ')':
     * starttime is field 22. */
    char *p = strrchr(buf, ')');
    for (int field = 2; p && field < 22; field++)
        p = strchr(p + 1, ' ');
    return p ? strtoull(p + 1, NULL, 10) : 0;
}

void tap_run_id_of_process_group(char *out, size_t len)
{
    pid_t pgid = getpgrp();
    snprintf(out, len, "pg%d-%llu", (int)pgid, start_ticks(pgid));
}

void tap_job_dir_name(char *out, size_t len, const char *job)
{
    char part[TAP_JOB_DIR_ID_MAX + 1];
    tap_out_name_part(part, sizeof part, job);
    /* The prefix keeps the name from being "." or ".." or hidden. */
    snprintf(out, len, "nccltap-%s", part);
}
