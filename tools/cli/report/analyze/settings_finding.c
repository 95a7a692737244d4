/* SETTINGS findings (settings_finding.h): one per communicator, its first
 * setting that differs, the first rank of its second most common value
 * named. The environment is the process's, so every communicator of its
 * ranks differs alike: an environment variable that one finding names
 * already at that process counts there (more_comms). */
#include "settings_finding.h"
#include "finding.h"
#include "settings.h"

/* An earlier settings finding of the same variable at the same process. */
static struct finding *same_env(struct findings *f, const struct setting_diff *d)
{
    for (size_t i = 0; d->env && i < f->n; i++) {
        struct finding *v = &f->v[i];
        if (v->kind == FINDING_SETTINGS && v->evidence.settings.setting->env &&
            v->evidence.settings.setting->name == d->name && v->file == d->values[1].file)
            return v;
    }
    return NULL;
}

void settings_findings(const struct finding_sources *in, struct findings *out)
{
    const struct settings_drift *sd = in->sd;
    if (!sd)
        return;
    out->settings_comms = sd->comms;
    for (size_t i = 0; i < sd->n;) {
        size_t j = i + 1;
        while (j < sd->n && sd->v[j].comm == sd->v[i].comm)
            j++;
        const struct setting_diff *d = &sd->v[i];
        struct finding *seen = same_env(out, d);
        if (seen) {
            seen->evidence.settings.more_comms++;
        } else {
            struct finding *v = finding_add(out, FINDING_SETTINGS, SECTION_SETTINGS);
            v->comm = d->comm;
            v->rank = d->values[1].ranks[0];
            v->file = d->values[1].file;
            v->evidence.settings = (struct settings_evidence){ .setting = d, .differing = j - i };
        }
        i = j;
    }
}
