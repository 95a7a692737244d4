/* Reading CTF traces with libbabeltrace2: one src.ctf.fs component per
 * trace directory, a flt.utils.muxer joining their streams, and a simple
 * sink of nccltap's own that hands each nccltap event to the caller and
 * counts what LTTng says it discarded. */
#include "trace_decode.h"
#include "trace_events.h"
#include "util.h"

#include <babeltrace2/babeltrace.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct sink {
    tev_fn fn;
    void *data;
    struct trace_stats *stats;
};

static void on_message(struct sink *s, const bt_message *m)
{
    uint64_t count;
    switch (bt_message_get_type(m)) {
    case BT_MESSAGE_TYPE_EVENT: {
        struct tev e;
        if (tev_decode(m, &e)) {
            if (tev_is_kernel(e.kind))
                s->stats->kernel_events++;
            else
                s->stats->events++;
            s->fn(&e, s->data);
        }
        break;
    }
    case BT_MESSAGE_TYPE_STREAM_BEGINNING:
        tev_declared(m, s->fn, s->data);
        break;
    /* LTTng (discard mode, the default) drops events when a sub-buffer is
     * full and records how many in the next packet; CTF readers turn that
     * into these messages. A count that is not known still means loss. */
    case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
        if (bt_message_discarded_events_get_count(m, &count) != BT_PROPERTY_AVAILABILITY_AVAILABLE)
            count = 1;
        s->stats->discarded_events += count;
        break;
    case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
        if (bt_message_discarded_packets_get_count(m, &count) != BT_PROPERTY_AVAILABILITY_AVAILABLE)
            count = 1;
        s->stats->discarded_packets += count;
        break;
    default:
        break;
    }
}

static bt_graph_simple_sink_component_consume_func_status consume(bt_message_iterator *it,
                                                                   void *data)
{
    bt_message_array_const msgs;
    uint64_t n;
    switch (bt_message_iterator_next(it, &msgs, &n)) {
    case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
        break;
    case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
        return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END;
    case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
        return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_AGAIN;
    case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
        return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_MEMORY_ERROR;
    default:
        return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR;
    }
    alarm(TRACE_READ_IDLE_S);  /* progress: the reader child's watchdog starts again (trace_events.h) */
    for (uint64_t i = 0; i < n; i++) {
        on_message(data, msgs[i]);
        bt_message_put_ref(msgs[i]);
    }
    return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK;
}

/* The causes babeltrace2 gave for its last failure, innermost last, on one
 * line. Malloc'ed. */
static char *bt_error_text(const char *what)
{
    const bt_error *err = bt_current_thread_take_error();
    char *text = xstrdup(what);
    if (!err)
        return text;
    uint64_t n = bt_error_get_cause_count(err);
    for (uint64_t i = 0; i < n; i++) {
        const char *m = bt_error_cause_get_message(bt_error_borrow_cause_by_index(err, i));
        char *longer = xasprintf("%s: %s", text, m);
        free(text);
        text = longer;
    }
    bt_error_release(err);
    /* The causes often end in newlines: one line for nccltap's message. */
    for (char *c = text; *c; c++)
        if (*c == '\n')
            *c = ' ';
    return text;
}

static const bt_plugin *find_plugin(const char *name, char **error)
{
    const bt_plugin *plugin = NULL;
    if (bt_plugin_find(name, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE, &plugin) !=
        BT_PLUGIN_FIND_STATUS_OK) {
        *error = xasprintf("babeltrace2's \"%s\" plugin is not installed (Debian/Ubuntu: "
                           "apt-get install babeltrace2)", name);
        return NULL;
    }
    return plugin;
}

static const bt_component_source *add_source(bt_graph *g, const bt_plugin *ctf,
                                             const char *dir, size_t i)
{
    bt_value *params = bt_value_map_create();
    bt_value *inputs = NULL;
    const bt_component_source *src = NULL;
    if (params && bt_value_map_insert_empty_array_entry(params, "inputs", &inputs) ==
                      BT_VALUE_MAP_INSERT_ENTRY_STATUS_OK &&
        bt_value_array_append_string_element(inputs, dir) == BT_VALUE_ARRAY_APPEND_ELEMENT_STATUS_OK) {
        char name[32];
        snprintf(name, sizeof name, "trace%zu", i);
        if (bt_graph_add_source_component(g, bt_plugin_borrow_source_component_class_by_name_const(ctf, "fs"),
                                          name, params, BT_LOGGING_LEVEL_WARNING, &src) !=
            BT_GRAPH_ADD_COMPONENT_STATUS_OK)
            src = NULL;
    }
    bt_value_put_ref(params);
    return src;
}

/* Every output port of `src` to a new input port of the muxer, which adds
 * one each time one is connected. */
static int connect_source(bt_graph *g, const bt_component_source *src,
                          const bt_component_filter *mux)
{
    uint64_t n = bt_component_source_get_output_port_count(src);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t free_port = bt_component_filter_get_input_port_count(mux) - 1;
        if (bt_graph_connect_ports(g, bt_component_source_borrow_output_port_by_index_const(src, i),
                                   bt_component_filter_borrow_input_port_by_index_const(mux, free_port),
                                   NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK)
            return -1;
    }
    return 0;
}

static int build(bt_graph *g, char *const *dirs, size_t n, struct sink *s, char **error)
{
    const bt_plugin *ctf = find_plugin("ctf", error);
    if (!ctf)
        return -1;
    const bt_plugin *utils = find_plugin("utils", error);
    if (!utils) {
        bt_plugin_put_ref(ctf);
        return -1;
    }
    int rc = -1;
    const bt_component_filter *mux = NULL;
    const bt_component_sink *sink = NULL;
    if (bt_graph_add_filter_component(g, bt_plugin_borrow_filter_component_class_by_name_const(utils, "muxer"),
                                      "muxer", NULL, BT_LOGGING_LEVEL_WARNING, &mux) !=
        BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
        *error = bt_error_text("cannot create a flt.utils.muxer component");
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        const bt_component_source *src = add_source(g, ctf, dirs[i], i);
        if (!src) {
            char *what = xasprintf("cannot read the trace in %s", dirs[i]);
            *error = bt_error_text(what);
            free(what);
            goto out;
        }
        if (connect_source(g, src, mux) != 0) {
            *error = bt_error_text("cannot connect the trace to the muxer");
            goto out;
        }
    }
    if (bt_graph_add_simple_sink_component(g, "nccltap", NULL, consume, NULL, s, &sink) !=
            BT_GRAPH_ADD_COMPONENT_STATUS_OK ||
        bt_graph_connect_ports(g, bt_component_filter_borrow_output_port_by_name_const(mux, "out"),
                               bt_component_sink_borrow_input_port_by_name_const(sink, "in"),
                               NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK) {
        *error = bt_error_text("cannot connect nccltap's sink");
        goto out;
    }
    rc = 0;
out:
    bt_plugin_put_ref(utils);
    bt_plugin_put_ref(ctf);
    return rc;
}

int trace_read_in_process(char *const *dirs, size_t n, tev_fn fn, void *data, struct trace_stats *stats,
                          char **error)
{
    memset(stats, 0, sizeof *stats);
    struct sink s = { fn, data, stats };
    bt_graph *g = bt_graph_create(0);
    if (!g) {
        *error = xstrdup("cannot create a babeltrace2 graph");
        return -1;
    }
    int rc = build(g, dirs, n, &s, error);
    if (rc == 0) {
        bt_graph_run_status st;
        /* AGAIN: a live source has nothing yet; a file source never says so,
         * but the loop costs nothing. */
        while ((st = bt_graph_run(g)) == BT_GRAPH_RUN_STATUS_AGAIN)
            ;
        if (st != BT_GRAPH_RUN_STATUS_OK) {
            *error = bt_error_text("cannot read the trace");
            rc = -1;
        }
    }
    bt_graph_put_ref(g);
    return rc;
}
