/* The SETTINGS finding's words, next step and JSON evidence: NCCL
 * settings (environment, config) that differ between the ranks of a
 * communicator (a row of finding_kinds.c). */
#include "finding_settings.h"
#include "finding_text.h"
#include "render.h"
#include "settings.h"

#include <inttypes.h>
#include <stdio.h>

/* The communicator's first setting that differs, and how many do. */
void finding_settings_line(const struct finding *f, const char *sep, FILE *out)
{
    (void)sep;
    const struct settings_evidence *e = &f->evidence.settings;
    fprintf(out, "comm %016" PRIx64 ": ", f->comm);
    print_setting_diff(e->setting, true, out);
    if (e->differing > 1)
        fprintf(out, "; %zu settings differ on it", e->differing);
    if (e->more_comms)
        fprintf(out, "; the same on %zu more communicator%s", e->more_comms, e->more_comms == 1 ? "" : "s");
}

void finding_settings_next(const struct finding *f, FILE *out)
{
    if (f->evidence.settings.setting->effective) {  /* the environment agrees: NCCL itself differs */
        fprintf(out, "make every rank load the same NCCL: which libnccl rank %d's process maps (grep nccl "
                "/proc/", f->rank);
        if (f->file)
            fprintf(out, "%lld", (long long)f->file->pid);
        else
            fputs("PID", out);
        fputs("/maps", out);
        finding_on_host(f, out);
        fputs(") against the others', and its environment plugin (NCCL_ENV_PLUGIN); NCCL_DEBUG=INFO prints "
              "the version and the values NCCL took", out);
        return;
    }
    fprintf(out, "make every rank's NCCL settings the same: compare rank %d's environment (env | grep ^NCCL_ "
            "in its process", f->rank);
    finding_on_host(f, out);
    fputs(") and the config each rank passes with the others' (the launcher, per-node profiles); "
          "NCCL_DEBUG=INFO prints the values NCCL took", out);
}

void finding_settings_evidence(const struct finding *f, json_t *j)
{
    const struct settings_evidence *e = &f->evidence.settings;
    json_object_set_new(j, "setting", setting_diff_json(e->setting));
    json_object_set_new(j, "differing", json_integer((json_int_t)e->differing));
    json_object_set_new(j, "more_comms", json_integer((json_int_t)e->more_comms));
}
