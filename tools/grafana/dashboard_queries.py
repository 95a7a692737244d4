#!/usr/bin/env python3
"""The metric names and label names a Grafana dashboard's PromQL uses.

metrics_and_labels(dashboard) walks every panel target's `expr` and every
query variable's `label_values(...)`, and returns {metric: {labels}}:
labels named in a metric's selector ({op="AllReduce"}), and labels of the
expression's by/without/on/ignoring clauses and label_values, given to
every metric of that expression (the dashboard keeps one metric per
expression, so that is exact). Grafana's variables ($op, ${op},
$__rate_interval) are taken out first. Used by tests/prom_test.py to check
every one of them against a real scrape; run it on a file to print them.
"""
import json
import re
import sys

# PromQL's functions, aggregations and keywords: identifiers that are not
# metric names.
KEYWORDS = {
    "sum", "min", "max", "avg", "group", "stddev", "stdvar", "count", "count_values", "bottomk", "topk",
    "quantile", "by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and", "or",
    "unless", "offset", "rate", "irate", "increase", "delta", "idelta", "deriv", "histogram_quantile",
    "abs", "absent", "ceil", "floor", "round", "clamp", "clamp_min", "clamp_max", "exp", "ln", "log2",
    "log10", "sqrt", "resets", "changes", "label_replace", "label_join", "sort", "sort_desc", "time",
    "timestamp", "vector", "scalar", "avg_over_time", "min_over_time", "max_over_time", "sum_over_time",
    "count_over_time", "last_over_time", "quantile_over_time", "predict_linear", "label_values", "inf", "nan",
}
GRAFANA_VARIABLE = re.compile(r"\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*|\[\[[^\]]*\]\]")
TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|\[[^\]]*\]|[A-Za-z_:][A-Za-z0-9_:]*|=~|!~|!=|==|\S')


def tokens(expr):
    return [t for t in TOKEN.findall(GRAFANA_VARIABLE.sub("x", expr))]


def parse_expr(expr):
    """({metric: {selector labels}}, {labels of clauses}) of one expression."""
    toks = tokens(expr)
    metrics, clause_labels = {}, set()
    i = 0
    while i < len(toks):
        t = toks[i]
        nxt = toks[i + 1] if i + 1 < len(toks) else ""
        if t in ("by", "without", "on", "ignoring", "group_left", "group_right") and nxt == "(":
            j = i + 2
            while j < len(toks) and toks[j] != ")":
                if re.match(r"[A-Za-z_]", toks[j]):
                    clause_labels.add(toks[j])
                j += 1
            i = j + 1
            continue
        if t == "label_values" and nxt == "(":
            # label_values(metric{...}, label) or label_values(label): the
            # last name before the closing parenthesis is a label.
            close = toks.index(")", i)
            clause_labels.add(toks[close - 1])
            toks[close - 1] = ""
            i += 2
            continue
        if re.match(r"[A-Za-z_:]", t) and t.lower() not in KEYWORDS and not (nxt == "(" and t.lower() in KEYWORDS):
            labels = metrics.setdefault(t, set())
            if nxt == "{":
                j = i + 2
                while j < len(toks) and toks[j] != "}":
                    if re.match(r"[A-Za-z_]", toks[j]) and j + 1 < len(toks) and toks[j + 1] in ("=", "!=", "=~", "!~"):
                        labels.add(toks[j])
                    j += 1
                i = j
        i += 1
    return metrics, clause_labels


def expressions(dashboard):
    for panel in dashboard.get("panels", []):
        for sub in [panel] + panel.get("panels", []):  # rows hold panels
            for target in sub.get("targets", []):
                if target.get("expr"):
                    yield target["expr"]
    for var in dashboard.get("templating", {}).get("list", []):
        q = var.get("query")
        q = q.get("query") if isinstance(q, dict) else q
        if var.get("type") == "query" and q:
            yield q


def metrics_and_labels(dashboard):
    used = {}
    for expr in expressions(dashboard):
        metrics, clause = parse_expr(expr)
        for metric, labels in metrics.items():
            used.setdefault(metric, set()).update(labels | clause)
    return used


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        for metric, labels in sorted(metrics_and_labels(json.load(f)).items()):
            print(metric, " ".join(sorted(labels)))
