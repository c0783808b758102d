"""Times trafilatura and readability-lxml on the extraction benchmark's pages.

Single thread, best of three rounds, one JSON line per peer. Run by
`cargo xtask bench extract` inside a virtualenv it prepares.
"""
import glob
import gzip
import json
import os
import sys
import time


def pages(directory):
    out = []
    for p in sorted(glob.glob(os.path.join(directory, "*.html.gz"))):
        with gzip.open(p, "rb") as f:
            out.append(f.read().decode("utf-8", errors="replace"))
    return out


def best_of(rounds, fn, htmls):
    best = float("inf")
    for _ in range(rounds):
        t = time.perf_counter()
        for h in htmls:
            fn(h)
        best = min(best, time.perf_counter() - t)
    return best


def main():
    htmls = pages(sys.argv[1])
    import trafilatura
    import lxml.html
    from readability import Document

    def traf(h):
        return trafilatura.extract(h)

    def rlxml(h):
        try:
            summary = Document(h).summary()
            return lxml.html.fromstring(summary).text_content()
        except Exception:
            return ""

    for name, fn in [
        ("trafilatura %s" % trafilatura.__version__, traf),
        ("readability-lxml", rlxml),
    ]:
        secs = best_of(3, fn, htmls)
        print(json.dumps({"peer": name, "ms_per_page": round(secs * 1e3 / len(htmls), 3), "pages": len(htmls)}), flush=True)


if __name__ == "__main__":
    main()
