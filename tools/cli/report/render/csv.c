/* `nccltap report --csv`: the op tables' merged lines, one per (communicator,
 * op, dtype, size class), as RFC 4180 CSV for spreadsheets and pandas. The
 * columns are the JSON report's "rows" (README, Outputs); an empty field is
 * JSON's null: no time is not a time of 0. */
#include "render.h"
#include "summary.h"

#include <math.h>
#include <string.h>

/* A text field: quoted when it holds a comma, a quote or a line break, a
 * quote doubled. Names come from the application; nothing else is done to
 * them, so that the CSV holds them as the JSON does. */
static void text(const char *s, FILE *out)
{
    if (!s[strcspn(s, ",\"\r\n")]) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

static void number(double v, FILE *out)
{
    if (v == floor(v) && fabs(v) < 9e15)  /* whole: exact (sizes past 10 GB) */
        fprintf(out, "%.0f", v);
    else if (isfinite(v))
        fprintf(out, "%.10g", v);
}

int report_print_csv(const struct report_summary *s, FILE *out)
{
    fputs("comm,comm_name,op,dtype,size_class,bytes,ranks,calls,calls_per_rank_min,calls_per_rank_max,"
          "timed,first_us,first_rank,mean_us,min_us,p50_us,p99_us,max_us,algbw_gbs,busbw_gbs,"
          "busbw_min_gbs,busbw_min_rank,busbw_max_gbs,busbw_max_rank,time_us_total,pct_nccl,pct_wall\r\n", out);
    for (size_t i = 0; i < s->nlines; i++) {
        const struct line_summary *l = &s->lines[i];
        const struct op_merged *m = &l->m;
        const struct op_row *k = m->first;
        bool timed = !isnan(l->us_mean);
        text(k->comm, out);
        fputc(',', out);
        text(l->comm ? l->comm->name : k->comm_name, out);
        fputc(',', out);
        text(k->op, out);
        fputc(',', out);
        text(k->dtype, out);
        fprintf(out, ",%llu,", (unsigned long long)k->size_class);
        number(l->bytes, out);
        fprintf(out, ",%zu,%llu,%llu,%llu,%llu,", m->nrows, (unsigned long long)m->calls,
                (unsigned long long)l->calls_min, (unsigned long long)l->calls_max,
                (unsigned long long)m->timed);
        number(m->first_us, out);
        fputc(',', out);
        if (!isnan(m->first_us))
            fprintf(out, "%d", m->first_rank);
        const double times[] = { l->us_mean, l->us_min, l->us_p50, l->us_p99, l->us_max,
                                 l->algbw_gbs, l->busbw_gbs };
        for (size_t j = 0; j < sizeof times / sizeof times[0]; j++) {
            fputc(',', out);
            number(times[j], out);
        }
        if (timed)
            fprintf(out, ",%.10g,%d,%.10g,%d,", m->busbw_lo, m->busbw_lo_rank, m->busbw_hi, m->busbw_hi_rank);
        else
            fputs(",,,,,", out);
        number(l->time_us, out);
        fputc(',', out);
        number(l->pct_nccl, out);
        fputc(',', out);
        number(l->pct_wall, out);
        fputs("\r\n", out);
    }
    return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}
