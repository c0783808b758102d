#!/usr/bin/env python3
"""Trains extraction's three selection models and writes them, as plain
data, to core/src/extract/model_data.rs (see that file and
core/src/extract/select.rs for what each decides).

Run from the workspace root, in a virtualenv with bench/train/requirements.txt:

    python3 bench/train/train.py

It runs `cargo run --release -p webgate --example extract_training` twice
(the rows of units and pages depend on the root model, so the root model
is trained first and compiled in), labels every row against the reference
texts of ../shared/data (the WCXB development split, the article-extraction
benchmark, and web-classics: 1,423 older pages of CleanEval, L3S-GN1 and
CleanPortalEval), fits LightGBM trees, prints five-fold cross-validated
figures (folds grouped by site: no page is scored by a model that saw a
page of its site), and writes the file. Deterministic: one thread, fixed
seeds. `--train wcxb,news` fits on those corpora only (web-classics out,
as the models were before it came).

    python3 bench/train/train.py --check

trains exactly as above and compares what it would write with the models
in core/src/extract/model_data.rs, byte for byte, leaving that file as it
was: exit status 1 when they differ (the new file is kept at
target/extract-training/model_data.rs). `cargo xtask train --check` runs
it in a virtualenv of its own; CI runs that, so the shipped trees are
always what this script makes of ../shared/data. No cross-validation is
printed in that mode.

    python3 bench/train/train.py --held-out

then also measures the whole pipeline on pages its models did not see
(`--held-out-only`: the same for the models as they are, without
training or writing them; `cargo xtask bench extract` runs it), two ways:
by site (five folds grouped by site over every corpus: for each fold the
three models are trained without that fold's sites and compiled in, and
the fold's pages extracted by the real code, `cargo bench --bench extract`,
scores only), and across corpora (models fitted on WCXB and the news
pages extract web-classics; models fitted on web-classics extract the
others). The outputs are scored together by the reference scripts; the
models of the whole sets are written back at the end. (The units a
group's unit model learns from are read under the root the whole-set
ranker chose: a small leak, the one shortcut.) In-sample figures include
what the trees fit of these very pages; the held-out ones are the figures
to compare with other extractors. `--sites-only` and `--cross-only` run
one of the two.

README.md beside this script says how to read the figures printed, and
lists what was tried, measured and not kept.
"""
import collections
import gzip
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys

import lightgbm as lgb
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHARED = os.path.join(ROOT, "..", "shared", "data")
OUT = os.path.join(ROOT, "target", "extract-training")
MODEL = os.path.join(ROOT, "core", "src", "extract", "model_data.rs")

PARAMS = dict(learning_rate=0.05, verbose=-1, n_jobs=1, deterministic=True, seed=7)
ROOT_TREES, PAGE_TREES, UNIT_TREES = 100, 150, 80
# The unit model scores every block of a page, the ranker every
# candidate: fewer, deeper trees at a larger step cross-validate as well
# as 200 trees of 8 leaves and cost fewer node visits.
UNIT_LEAVES, UNIT_STEP = 16, 0.075
ROOT_LEAVES, ROOT_STEP = 16, 0.1
ARTICLE, KEEP = 0.7, 0.4  # the thresholds of select.rs


def tokens(t):
    return re.findall(r"\w+", (t or "").lower())


# The corpora, by the prefix of their page ids in the training rows.
CORPORA = {"wcxb": "", "news": "n", "classics": "c"}


def corpus_of(pid):
    """The corpus of a page id: `news` (n…), `classics` (c…) or `wcxb`."""
    if pid.startswith("n"):
        return "news"
    if pid.startswith("c"):
        return "classics"
    return "wcxb"


def truths():
    out = {}
    for name, prefix in (("wcxb-dev", ""), ("web-classics", "c")):
        with gzip.open(os.path.join(SHARED, name, "ground-truth.jsonl.gz"), "rt", encoding="utf-8") as f:
            for line in f:
                d = json.loads(line)
                out[prefix + d["id"]] = d["main_content"]
    with open(os.path.join(SHARED, "article-extraction-benchmark", "ground-truth.json"), encoding="utf-8") as f:
        for k, v in json.load(f).items():
            out["n" + k] = v.get("articleBody", "")
    return out


# Hosts that are no site: a corpus's placeholder for an address it lost.
PLACEHOLDERS = {"", "gnews.example", "example.com", "example.invalid"}
LINK_HOST = re.compile(rb'href\s*=\s*["\']?https?://([^/"\'\s>:]+)', re.I)


def sites():
    """A site per page id, for folds that keep a site's pages together: the
    host of the page's URL (without `www.`), or, where the corpus records
    no address (L3S-GN1's pages), the host most of the page's absolute
    links point to (its own site's, on a news page)."""
    out = {}

    def host(url):
        h = re.sub(r"^https?://", "", url or "").split("/")[0].split(":")[0].lower()
        return re.sub(r"^www\.", "", h)

    def from_links(path):
        with gzip.open(path, "rb") as f:
            hosts = collections.Counter(re.sub(rb"^www\.", b"", h.lower()) for h in LINK_HOST.findall(f.read()))
        return hosts.most_common(1)[0][0].decode("ascii", "replace") if hosts else ""

    for name, prefix in (("wcxb-dev", ""), ("web-classics", "c")):
        with gzip.open(os.path.join(SHARED, name, "ground-truth.jsonl.gz"), "rt", encoding="utf-8") as f:
            for line in f:
                d = json.loads(line)
                h = host(d.get("url"))
                if h in PLACEHOLDERS:
                    h = from_links(os.path.join(SHARED, name, "html", d["id"] + ".html.gz")) or "page:" + d["id"]
                out[prefix + d["id"]] = h
    with open(os.path.join(SHARED, "article-extraction-benchmark", "ground-truth.json"), encoding="utf-8") as f:
        for k, v in json.load(f).items():
            out["n" + k] = host(v.get("url")) or "page:n" + k
    return out


SITES = {}

# The corpora whose pages the models are fitted on (`--train wcxb,news`
# leaves web-classics out, as the models were before it came).
TRAIN = set(CORPORA)

# `--check`: the models only, no cross-validated figures (the final fits
# do not depend on them), written beside the shipped file and compared.
CHECK = False


def dump():
    subprocess.run(
        ["cargo", "run", "--release", "-q", "-p", "webgate", "--example", "extract_training", "--", OUT],
        cwd=ROOT, check=True)


def read(name, with_text):
    rows = []
    with open(os.path.join(OUT, name), encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            x = [float(v) for v in parts[2].split(",")]
            rows.append((parts[0], parts[1], x, parts[3] if with_text and len(parts) > 3 else ""))
    return rows


def word_f1(pred, ref):
    if not ref:
        return 1.0 if not pred else 0.0
    if not pred:
        return 0.0
    ov = sum((pred & ref).values())
    p, r = ov / sum(pred.values()), ov / sum(ref.values())
    return 2 * p * r / (p + r) if p + r else 0.0


def folds(ids):
    """Five folds grouped by site: every page of a site falls in one fold,
    so no page is scored by a model that saw another page of its site."""
    keys = sorted(set(SITES.get(p, p) for p in ids))
    perm = np.random.RandomState(0).permutation(len(keys))
    fold = {keys[i]: k % 5 for k, i in enumerate(perm)}
    return np.array([fold[SITES.get(p, p)] for p in ids])


def report(name, by_type):
    allv = [v for vs in by_type.values() for v in vs]
    print(f"{name}: overall {np.mean(allv):.3f}  " +
          "  ".join(f"{k} {np.mean(v):.3f}" for k, v in sorted(by_type.items())))


def grouped(pid):
    groups, last = [], None
    for p in pid:
        if p != last:
            groups.append(0)
            last = p
        groups[-1] += 1
    return groups


def fit_ranker(X, y, pid, trees):
    # News pages count twice: they are few, and their benchmark is strict.
    dup = np.array([p.startswith("n") for p in pid])
    X = np.concatenate([X, X[dup]])
    y = np.concatenate([y, y[dup]])
    pid = np.concatenate([pid, np.array(["dup" + p for p in pid[dup]])])
    order = np.argsort(pid, kind="stable")
    m = lgb.LGBMRanker(n_estimators=trees, num_leaves=ROOT_LEAVES, min_child_samples=20,
                       **dict(PARAMS, learning_rate=ROOT_STEP))
    m.fit(X[order], np.clip((y[order] * 10).astype(int), 0, 10), group=grouped(pid[order]))
    return m


def root_rows(truth):
    """Candidates: features, label (the F1 of the candidate's text), page, type."""
    rows = read("candidates.tsv", True)
    pid = np.array([r[0] for r in rows])
    ptype = np.array([r[1] for r in rows])
    X = np.array([r[2] for r in rows])
    bags = {p: collections.Counter(tokens(t)) for p, t in truth.items()}
    y = np.array([word_f1(collections.Counter(tokens(r[3])), bags[r[0]]) for r in rows])
    return X, y, pid, ptype


def trained_on(*cols):
    """The rows of the corpora trained on (`TRAIN`); the page ids last."""
    keep = np.array([corpus_of(p) in TRAIN for p in cols[-1]])
    return [c[keep] for c in cols]


def train_root(truth):
    X, y, pid, ptype = root_rows(truth)
    X, y, ptype, pid = trained_on(X, y, ptype, pid)
    if CHECK:
        return fit_ranker(X, y, pid, ROOT_TREES), X
    fo = folds(pid)
    pred = np.zeros(len(y))
    for k in range(5):
        m = fit_ranker(X[fo != k], y[fo != k], pid[fo != k], ROOT_TREES)
        pred[fo == k] = m.predict(X[fo == k])
    by, oracle = collections.defaultdict(list), collections.defaultdict(list)
    for p in sorted(set(pid)):
        idx = np.where(pid == p)[0]
        by[ptype[idx[0]]].append(y[idx[np.argmax(pred[idx])]])
        oracle[ptype[idx[0]]].append(y[idx].max())
    report("root, best candidate (raw text)", oracle)
    report("root, cross-validated choice (raw text)", by)
    return fit_ranker(X, y, pid, ROOT_TREES), X


# Page types that are articles. CleanEval mixes blogs, forums, company
# and personal pages with no type recorded: its pages teach the page model
# nothing and are left out of its rows. (Leaving all of web-classics out,
# its news pages being of one answer only, was measured: in sample WCXB
# moved 0.8777 -> 0.8781 and L3S-GN1 fell 0.954 -> 0.942.)
ARTICLE_TYPES = ["article", "news", "gnews", "portal"]
UNTYPED = ["cleaneval"]


def page_rows():
    """Pages: features, label (an article or not), page (pages of a type
    that is not recorded left out)."""
    rows = [r for r in read("pages.tsv", False) if r[1] not in UNTYPED]
    ptype = np.array([r[1] for r in rows])
    X = np.array([r[2] for r in rows])
    y = np.isin(ptype, ARTICLE_TYPES).astype(int)
    return X, y, np.array([r[0] for r in rows]), ptype


def make_page():
    return lgb.LGBMClassifier(n_estimators=PAGE_TREES, num_leaves=8, min_child_samples=20, **PARAMS)


def train_page():
    X, y, pid, ptype = page_rows()
    X, y, ptype, pid = trained_on(X, y, ptype, pid)
    if CHECK:
        return make_page().fit(X, y), X, {}
    fo = folds(pid)
    prob = np.zeros(len(y))
    for k in range(5):
        m = make_page().fit(X[fo != k], y[fo != k])
        prob[fo == k] = m.predict_proba(X[fo == k])[:, 1]
    called = prob >= ARTICLE
    print(f"page type, cross-validated: {np.mean(called == y.astype(bool)):.3f} right; called article: " +
          "  ".join(f"{t} {np.mean(called[ptype == t]):.2f}" for t in sorted(set(ptype))))
    return make_page().fit(X, y), X, dict(zip(pid, prob))


def grams(t, n=3):
    return set(tuple(t[i:i + n]) for i in range(max(1, len(t) - n + 1)))


def unit_rows(truth):
    """Units: features, label (content or not), weight, page, type, words."""
    rows = read("units.tsv", True)
    pid = np.array([r[0] for r in rows])
    ptype = np.array([r[1] for r in rows])
    X = np.array([r[2] for r in rows])
    toks = [tokens(r[3]) for r in rows]
    tg = {p: grams(tokens(t)) for p, t in truth.items()}
    tn = {p: " " + " ".join(tokens(t)) + " " for p, t in truth.items()}

    # A unit belongs to the content when its word triples (or, under
    # three words, its words in a row) are in the reference text.
    def label(t, p):
        if not t:
            return 0.0
        if len(t) < 3:
            return float(" " + " ".join(t) + " " in tn[p])
        g = grams(t)
        return sum(1 for x in g if x in tg[p]) / len(g)

    y = np.array([label(t, p) for t, p in zip(toks, pid)]) >= 0.5
    # A unit whose words an earlier unit of the page already had is
    # content only while the reference repeats them that often: the
    # word triples above cannot tell a quoted post or a cloned slide
    # from the first copy.
    times = collections.Counter()
    for i, (t, p) in enumerate(zip(toks, pid)):
        if len(t) < 3:
            continue
        key = (p, " ".join(t))
        times[key] += 1
        if times[key] > 1:
            y[i] = tn[p].count(" " + key[1] + " ") >= times[key]
    w = np.log1p([max(1, len(t)) for t in toks]) * np.where(ptype == "news", 3.0, 1.0)
    # The unit model decides the blocks of pages that are not articles
    # (articles take the article rules): web-classics' news pages, typed
    # articles all, would teach it only that a page's link lists are
    # boilerplate, which a shop's grid or a listing's rows are not. Their
    # rows weigh nothing; CleanEval's pages, of every kind, stay.
    w = w * np.where(np.isin(ptype, ["gnews", "portal"]), 0.0, 1.0)
    return X, y, w, pid, ptype, toks


def make_unit():
    return lgb.LGBMClassifier(n_estimators=UNIT_TREES, num_leaves=UNIT_LEAVES, min_child_samples=40,
                              **dict(PARAMS, learning_rate=UNIT_STEP))


def train_unit(truth, page_prob):
    X, y, w, pid, ptype, toks = unit_rows(truth)
    # An array of lists, one a row (np.array would make a matrix of rows
    # of one length).
    words = np.empty(len(toks), dtype=object)
    words[:] = toks
    X, y, w, ptype, toks, pid = trained_on(X, y, w, ptype, words, pid)
    if CHECK:
        return make_unit().fit(X, y, sample_weight=w), X
    # A page declaring itself an article twice (JSON-LD, og:type) takes
    # the article rules whatever the classifier says (select.rs).
    Xp, _, pp, _ = page_rows()
    declares = {p: x[0] == 1.0 and x[8] == 1.0 for p, x in zip(pp, Xp)}
    fo = folds(pid)
    prob = np.zeros(len(y))
    for k in range(5):
        m = make_unit().fit(X[fo != k], y[fo != k], sample_weight=w[fo != k])
        prob[fo == k] = m.predict_proba(X[fo == k])[:, 1]
    bags = {p: collections.Counter(tokens(t)) for p, t in truth.items()}
    idx = collections.defaultdict(list)
    for i, p in enumerate(pid):
        idx[p].append(i)
    types = {p: t for p, t in zip(pid, ptype)}
    for name, keep in [
        ("every unit of the root", np.ones(len(y), bool)),
        ("units the reference holds", y),
        ("cross-validated pruning (articles by the article rules)", None),
    ]:
        by = collections.defaultdict(list)
        for p in sorted(idx):
            article = page_prob.get(p, 0.0) >= ARTICLE or declares.get(p, False)
            c = collections.Counter()
            for i in idx[p]:
                kept = (X[i, 0] < 0.5 if article else prob[i] >= KEEP) if keep is None else keep[i]
                if kept:
                    c.update(toks[i])
            by[types[p]].append(word_f1(c, bags[p]))
        report(name, by)
    return make_unit().fit(X, y, sample_weight=w), X


def trees_of(model):
    nodes, roots = [], []

    def walk(t):
        i = len(nodes)
        nodes.append(None)
        if "leaf_value" in t:
            nodes[i] = (-1, t["leaf_value"], 0, 0)
        else:
            assert t["decision_type"] == "<="
            left, right = walk(t["left_child"]), walk(t["right_child"])
            nodes[i] = (t["split_feature"], t["threshold"], left, right)
        return i

    for tree in model.booster_.dump_model()["tree_info"]:
        roots.append(walk(tree["tree_structure"]))
    return nodes, roots


def ensemble(name, model, names, doc):
    nodes, roots = trees_of(model) if model is not None else ([], [])
    listed = ", ".join(f'"{n}"' for n in names)
    out = [f"/// {doc}\npub static {name}: Ensemble = Ensemble {{\n    names: &[{listed}],\n    nodes: &[\n"]
    out += [f"        ({f}, {float(t)!r}, {l}, {r}),\n" for f, t, l, r in nodes]
    out.append("    ],\n    trees: &[\n")
    for i in range(0, len(roots), 12):
        out.append("        " + ", ".join(str(r) for r in roots[i:i + 12]) + ",\n")
    out.append("    ],\n};\n\n")
    return "".join(out)


# The lines of this script whose values decide the trees: the provenance
# block of model_data.rs quotes them, and `cargo xtask tidy` holds the
# quote to this file.
SETTINGS = ("PARAMS = ", "ROOT_TREES, PAGE_TREES, UNIT_TREES = ", "UNIT_LEAVES, UNIT_STEP = ",
            "ROOT_LEAVES, ROOT_STEP = ", "ARTICLE, KEEP = ")
DATA = (("wcxb", "wcxb-dev/ground-truth.jsonl.gz"),
        ("news", "article-extraction-benchmark/ground-truth.json"),
        ("classics", "web-classics/ground-truth.jsonl.gz"))


def provenance():
    """The provenance block: the trainer, the lines of its settings, the
    LightGBM version, and each corpus trained on with its page count and
    the SHA-256 of its reference file (the first 16 hex digits)."""
    with open(os.path.abspath(__file__), encoding="utf-8") as f:
        own = f.read().splitlines()
    settings = [line.split("  #")[0].rstrip() for line in own if line.startswith(SETTINGS)]
    assert len(settings) == len(SETTINGS), settings
    with open(os.path.join(OUT, "pages.tsv"), encoding="utf-8") as f:
        counts = collections.Counter(corpus_of(line.split("\t", 1)[0]) for line in f)
    corpora = []
    for corpus, path in DATA:
        if corpus not in TRAIN:
            continue
        with open(os.path.join(SHARED, path), "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()[:16]
        corpora.append(f'        ("{corpus}", "{path}", {counts[corpus]}, "{digest}"),\n')
    quoted = "".join(f"        {json.dumps(line)},\n" for line in settings)
    return ("/// Where these models come from: the trainer, the lines of it that\n"
            "/// decide the trees (`cargo xtask tidy` holds them to the script), the\n"
            "/// LightGBM version, and the corpora trained on (name, reference file\n"
            "/// under `../shared/data`, pages, SHA-256 prefix). `cargo xtask train\n"
            "/// --check` trains again and compares the trees byte for byte.\n"
            "#[cfg(test)]\npub const PROVENANCE: Provenance = Provenance {\n"
            "    trainer: \"bench/train/train.py\",\n"
            f"    settings: &[\n{quoted}    ],\n"
            f"    lightgbm: \"{lgb.__version__}\",\n"
            f"    corpora: &[\n{''.join(corpora)}    ],\n"
            "};\n\n")


def write(models, path=None):
    parts = [
        "//! The selection models of extraction (see `select`), as plain data:\n"
        "//! LightGBM regression trees written by `bench/train/train.py` from the\n"
        "//! WCXB development split, the article-extraction benchmark and the\n"
        "//! web-classics pages (LightGBM with `PARAMS`, seed 7, deterministic).\n"
        "//! Generated: do not edit by hand; run the trainer again.\n\n"
        "// Numbers are the trainer's, as it wrote them.\n"
        "#![allow(clippy::approx_constant, clippy::excessive_precision)]\n\n"
        "use super::model::Ensemble;\n"
        "#[cfg(test)]\nuse super::model::Provenance;\n\n"
    ]
    # The features' names as the dump wrote them (a line each: candidates,
    # units, pages): the compiled models carry them, and a test holds them
    # to the rows inference builds.
    with open(os.path.join(OUT, "features.txt"), encoding="utf-8") as f:
        lines = [line.split(",") for line in f.read().splitlines()]
    names_of = {"ROOT": lines[0], "UNIT": lines[1], "PAGE": lines[2]}
    checks = []
    parts.append(provenance())
    for name, model, X, doc in models:
        assert len(names_of[name]) == X.shape[1], (name, len(names_of[name]), X.shape[1])
        parts.append(ensemble(name, model, names_of[name], doc))
        if model is None:
            continue
        raw = model.predict(X[:3], raw_score=True) if hasattr(model, "predict_proba") else model.predict(X[:3])
        for x, v in zip(X[:3], raw):
            checks.append((name.lower(), x, v))
    parts.append("/// Rows and the scores the trainer computed for them (a test holds the\n"
                 "/// compiled trees to them).\n#[cfg(test)]\npub const CHECKS: &[(&str, &[f64], f64)] = &[\n")
    for name, x, v in checks:
        parts.append(f"    (\"{name}\", &[{', '.join(repr(float(a)) for a in x)}], {float(v)!r}),\n")
    parts.append("];\n")
    path = path or MODEL
    with open(path, "w", encoding="utf-8") as f:
        f.write("".join(parts))
    subprocess.run(["rustfmt", "--edition", "2021", path], check=True)


def held_out(truth, split, label):
    """The whole pipeline on pages its models did not see: `split` gives
    each page id a group; for each group, the three models are trained on
    the other groups' pages, compiled in, and the group's pages extracted
    by the real code (`cargo bench --bench extract`, scores only). The
    groups' outputs are scored together by the reference scripts; returns
    their reports. (The units a group's unit model learns from are read
    under the root the whole-set ranker chose: a small leak, the one
    shortcut.)"""
    Xr, yr, pr, _ = root_rows(truth)
    Xp, yp, pp, _ = page_rows()
    Xu, yu, wu, pu, _, _ = unit_rows(truth)
    groups = sorted(set(split.values()))
    # A page outside the corpora trained on counts as a group of its own
    # (-1): never trained on, extracted by every group's models.
    gr, gp, gu = (np.array([split[p] if corpus_of(p) in TRAIN else -1 for p in ids])
                  for ids in (pr, pp, pu))
    out = os.path.join(ROOT, "target", "held-out", label)
    os.makedirs(out, exist_ok=True)
    # The models and the benchmark's own prediction files are put back
    # however the run ends.
    files = ("wcxb-predictions.jsonl", "classics-predictions.jsonl", "extract-predictions.json")
    saved = [(MODEL, os.path.join(out, "model_data.rs"))] + [
        (os.path.join(ROOT, "target", name), os.path.join(out, "saved-" + name)) for name in files]
    saved = [(a, b) for a, b in saved if os.path.isfile(a)]
    for a, b in saved:
        shutil.copyfile(a, b)
    wcxb, classics, news = {}, {}, {}
    try:
        for k in groups:
            # A training set of one page type (web-classics' typed pages
            # are all news) cannot teach the page model: it is left
            # untrained, and only pages that declare themselves articles
            # take the article rules.
            tr, tp_, tu = (gr != k) & (gr >= 0), (gp != k) & (gp >= 0), (gu != k) & (gu >= 0)
            page_y = yp[tp_]
            page = make_page().fit(Xp[tp_], page_y) if len(set(page_y)) > 1 else None
            write([
                ("ROOT", fit_ranker(Xr[tr], yr[tr], pr[tr], ROOT_TREES), Xr, "A group's ranker."),
                ("PAGE", page, Xp, "A group's page model."),
                ("UNIT", make_unit().fit(Xu[tu], yu[tu], sample_weight=wu[tu]), Xu, "A group's unit model."),
            ])
            subprocess.run(["cargo", "bench", "-q", "-p", "webgate", "--bench", "extract"], cwd=ROOT, check=True,
                           stdout=subprocess.DEVNULL, env=dict(os.environ, WEBGATE_EXTRACT_QUALITY_ONLY="1"))
            for name, into, prefix in (("wcxb-predictions.jsonl", wcxb, ""),
                                       ("classics-predictions.jsonl", classics, "c")):
                with open(os.path.join(ROOT, "target", name), encoding="utf-8") as f:
                    for line in f:
                        pid = json.loads(line)["id"]
                        if split.get(prefix + pid) == k:
                            into[pid] = line
            with open(os.path.join(ROOT, "target", "extract-predictions.json"), encoding="utf-8") as f:
                for pid, v in json.load(f).items():
                    if split.get("n" + pid) == k:
                        news[pid] = v
            print(f"held out ({label}): group {k + 1} of {len(groups)} extracted", flush=True)
    finally:
        for a, b in saved:
            shutil.copyfile(b, a)
    tools = os.path.join(ROOT, "..", "shared", "tools")
    reports = []
    for name, lines, data in (("wcxb", wcxb, "wcxb-dev"), ("classics", classics, "web-classics")):
        if not lines:
            continue
        path = os.path.join(out, name + "-predictions.jsonl")
        with open(path, "w", encoding="utf-8") as f:
            for i in sorted(lines):
                row = json.loads(lines[i])
                # The reference script checks markdown against the
                # reference's own, which web-classics has not.
                if name == "classics":
                    row.pop("markdown", None)
                f.write(json.dumps(row) + "\n")
        reports.append(subprocess.run(
            [sys.executable, os.path.join(tools, "score_wcxb.py"), os.path.join(SHARED, data), "--predictions", path],
            check=True, capture_output=True, text=True).stdout)
    if news:
        path = os.path.join(out, "news-predictions.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(news, f)
        reports.insert(0, subprocess.run(
            [sys.executable, os.path.join(tools, "score_extraction.py"),
             os.path.join(SHARED, "article-extraction-benchmark", "ground-truth.json"), path],
            check=True, capture_output=True, text=True).stdout)
    return reports


def print_held_out(truth, which):
    """`which`: `sites` (five folds grouped by site, every corpus) and
    `cross` (models fitted on one corpus extract the other: WCXB and the
    news pages against web-classics)."""
    ids = list(truth)
    if "sites" in which:
        split = dict(zip(ids, folds(np.array(ids))))
        for text in held_out(truth, split, "sites"):
            print("held out by site: " + text.rstrip().replace("\n", "\nheld out by site: "))
    if "cross" in which:
        split = {p: int(corpus_of(p) == "classics") for p in ids}
        for text in held_out(truth, split, "cross"):
            print("cross-corpus: " + text.rstrip().replace("\n", "\ncross-corpus: "))


def which():
    """The held-out measures asked for: `--held-out` and `--held-out-only`
    run both; `--sites-only` or `--cross-only` one."""
    args = sys.argv[1:]
    if "--sites-only" in args:
        return ["sites"]
    if "--cross-only" in args:
        return ["cross"]
    return ["sites", "cross"]


def check(truth):
    """`--check`: trains as `main` does, with the shipped file put back
    whatever happens (the root model must be compiled in for the second
    dump), and compares the result with it byte for byte."""
    with open(MODEL, "rb") as f:
        shipped = f.read()
    fresh = os.path.join(OUT, "model_data.rs")
    try:
        train(truth, fresh)
    finally:
        with open(MODEL, "wb") as f:
            f.write(shipped)
    with open(fresh, "rb") as f:
        made = f.read()
    # The row dumps (about 500 MB of text) are made again by any run that
    # needs them: a check leaves only what it says.
    for name in ("candidates.tsv", "units.tsv", "pages.tsv"):
        path = os.path.join(OUT, name)
        if os.path.exists(path):
            os.remove(path)
    if made == shipped:
        print(f"train --check: {os.path.relpath(MODEL, ROOT)} is what the trainer makes of the data")
        return 0
    a, b = shipped.decode().splitlines(), made.decode().splitlines()
    first = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    print(f"train --check: {os.path.relpath(MODEL, ROOT)} differs from what the trainer makes of the data, "
          f"first at line {first + 1}:\n  shipped: {a[first] if first < len(a) else '(end)'}\n"
          f"  trained: {b[first] if first < len(b) else '(end)'}\n"
          f"the trained file is {fresh}; run `python3 bench/train/train.py` to ship it", file=sys.stderr)
    return 1


def train(truth, path=None):
    """Trains the three models and writes them to `path` (the shipped
    file by default); the root model is compiled in between (into the
    shipped file: the second dump must run with it)."""
    dump()
    root, Xr = train_root(truth)
    # The units and pages of the new root: compile it in (the other two
    # empty for now: they do not change those rows), dump again.
    # The placeholders take their widths from the dump's feature names
    # (a line each: candidates, units, pages).
    with open(os.path.join(OUT, "features.txt"), encoding="utf-8") as f:
        widths = [len(line.split(",")) for line in f.read().splitlines()]
    write([
        ("ROOT", root, Xr, "Ranks candidate roots."),
        ("PAGE", None, np.zeros((1, widths[2])), "Not trained yet."),
        ("UNIT", None, np.zeros((1, widths[1])), "Not trained yet."),
    ])
    dump()
    page, Xp, page_prob = train_page()
    unit, Xu = train_unit(truth, page_prob)
    write([
        ("ROOT", root, Xr, "Ranks candidate roots (features: `features::candidates`)."),
        ("PAGE", page, Xp, "Log-odds that a page is an article (features: `features::page`)."),
        ("UNIT", unit, Xu, "Log-odds that a unit is content (features: `features::units`)."),
    ], path)


def main():
    global CHECK
    truth = truths()
    SITES.update(sites())
    args = sys.argv[1:]
    if "--train" in args:
        TRAIN.clear()
        TRAIN.update(args[args.index("--train") + 1].split(","))
    if any(a in sys.argv[1:] for a in ("--held-out-only", "--sites-only", "--cross-only")):
        dump()
        print_held_out(truth, which())
        return 0
    if "--check" in args:
        CHECK = True
        return check(truth)
    train(truth)
    print(f"wrote {MODEL}")
    if "--held-out" in sys.argv[1:]:
        print_held_out(truth, which())


if __name__ == "__main__":
    sys.exit(main())
