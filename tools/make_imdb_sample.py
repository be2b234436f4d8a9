"""Write the IMDB sample that ships inside the package (attn_tokens/samples/imdb/{train,test}.parquet).

From a local copy of IMDB (the data folder's imdb/{train,test}.parquet, e.g. $ATTN_TOKENS_DATA), draw 250 reviews of
each class from each split with numpy.random.default_rng(0) (class 0 first, then class 1, without replacement; rows
kept in file order) and write them with write_local_copy, so that the sample reads as the data set `imdb`.
Running it again on the same copy gives byte-identical files; it prints their sha256 for samples/README.md and
attn_tokens.data.corpora.SAMPLE_SHA256 (nbs/data/01a_corpora.ipynb), against which the package checks the sample
whenever it reads it.

Usage: python tools/make_imdb_sample.py DATA_FOLDER [--force]"""
import argparse, hashlib
from pathlib import Path
import numpy as np
import pyarrow.parquet as pq
from attn_tokens.data.corpora import SAMPLE_DIR, write_local_copy

PER_CLASS = 250

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('data', type=Path, help='folder holding imdb/train.parquet and imdb/test.parquet')
    ap.add_argument('--force', action='store_true', help='replace the shipped files')
    a = ap.parse_args()
    for split in ('train', 'test'):
        tb = pq.read_table(a.data/'imdb'/f'{split}.parquet')
        lab = tb.column('label').to_numpy()
        rng = np.random.default_rng(0)
        idx = np.sort(np.concatenate([rng.choice(np.flatnonzero(lab == k), PER_CLASS, replace=False)
                                      for k in (0, 1)]))
        f = write_local_copy(SAMPLE_DIR, 'imdb', split, tb.column('text').take(idx).to_pylist(), lab[idx],
                             ['neg', 'pos'], force=a.force)
        print(f"{f.name}: {len(idx)} rows, sha256 {hashlib.sha256(f.read_bytes()).hexdigest()}")

if __name__ == '__main__': main()
