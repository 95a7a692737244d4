/* The Settings section (analyze/settings.h, s->settings): each NCCL
 * setting that differs between the ranks of a communicator, its values
 * and who has each; its pieces also spell the SETTINGS finding
 * (finding_settings.c). A variable's value is shown as its hash only
 * ("#e347a123"): the shim never writes values. Text and --json's
 * "settings"; the HTML page has its own table (html_disagree.c). */
#include "render.h"
#include "escape.h"
#include "format.h"
#include "settings.h"
#include "summary.h"

#include <inttypes.h>

/* "env" (an NCCL_* variable), "param" (NCCL's effective parameter) or
 * "config" (a field of the communicator's ncclConfig_t). */
const char *setting_kind(const struct setting_diff *d)
{
    return d->effective ? "param" : d->env ? "env" : "config";
}

static void print_value(const struct setting_diff *d, const struct setting_value *v, FILE *out)
{
    char text[SHOWN_MAX];
    if (!v->set)
        fputs("unset", out);
    else if (d->env)
        fprintf(out, "set (value #%08" PRIx64 ")", v->hash >> 32);
    else if (v->text)
        fprintf(out, "\"%s\"", shown(v->text, text));
    else
        fprintf(out, "%d", v->number);
}

static void print_ranks(const struct setting_value *v, FILE *out)
{
    if (v->nranks == 1) {
        fprintf(out, "rank %d", v->ranks[0]);
        return;
    }
    fprintf(out, "%zu ranks (", v->nranks);
    print_rank_list(v->ranks, v->nranks, out);
    fputc(')', out);
}

void print_setting_diff(const struct setting_diff *d, bool process, FILE *out)
{
    char name[SHOWN_MAX];
    fprintf(out, "%s%s%s is ", d->env ? "" : "config ", shown(d->name, name),
            d->effective ? " (NCCL's effective value)" : "");
    for (size_t k = 1; k <= d->nvalues; k++) {  /* the others, then the most common */
        const struct setting_value *v = &d->values[k % d->nvalues];
        if (k > 1)
            fputs(k == d->nvalues ? ", where it is " : ", ", out);
        print_value(d, v, out);
        fputs(" on ", out);
        print_ranks(v, out);
        char host[SHOWN_MAX];
        if (v->host_apart)
            fprintf(out, " (every rank of host %s)", shown(v->host_apart, host));
        else if (process && k == 1 && v->file)
            fprintf(out, " (host %s, pid %lld)", shown(v->file->host, host), v->file->pid);
    }
}

void print_settings(const struct report_summary *s, FILE *out)
{
    const struct settings_drift *sd = &s->settings;
    if (!sd->n)
        return;
    fputs("\nSettings (NCCL settings that differ between the ranks of a communicator; a variable's value is shown "
          "by its hash)\n", out);
    for (size_t i = 0; i < sd->n; i++) {
        fprintf(out, "  comm %016" PRIx64 " ", sd->v[i].comm);
        print_setting_diff(&sd->v[i], true, out);
        fputc('\n', out);
    }
}

json_t *setting_diff_json(const struct setting_diff *d)
{
    char comm[17];
    snprintf(comm, sizeof comm, "%016" PRIx64, d->comm);
    json_t *values = json_array();
    for (size_t k = 0; k < d->nvalues; k++) {
        const struct setting_value *v = &d->values[k];
        json_t *ranks = json_array();
        for (size_t i = 0; i < v->nranks; i++)
            json_array_append_new(ranks, json_integer(v->ranks[i]));
        json_t *o = json_pack("{s:o, s:b}", "ranks", ranks, "set", v->set);
        if (d->env) {
            char hash[17];
            snprintf(hash, sizeof hash, "%016" PRIx64, v->hash);
            json_object_set_new(o, "hash", v->set ? json_string(hash) : json_null());
        } else {
            json_object_set_new(o, "value", !v->set ? json_null() : v->text ? json_string(v->text)
                                                                           : json_integer(v->number));
        }
        json_object_set_new(o, "host", v->file ? json_string(v->file->host) : json_null());
        json_object_set_new(o, "host_apart", v->host_apart ? json_string(v->host_apart) : json_null());
        json_object_set_new(o, "pid", v->file ? json_integer(v->file->pid) : json_null());
        json_array_append_new(values, o);
    }
    return json_pack("{s:s, s:s, s:s, s:o}", "comm", comm, "kind", setting_kind(d), "name", d->name, "values",
                     values);
}

json_t *settings_json(const struct report_summary *s)
{
    json_t *a = json_array();
    for (size_t i = 0; i < s->settings.n; i++)
        json_array_append_new(a, setting_diff_json(&s->settings.v[i]));
    return json_pack("{s:I, s:o}", "comms_compared", (json_int_t)s->settings.comms, "differ", a);
}
