"""What the measurement scripts of this folder share about their files and arguments (each script imports it: a
script's own folder is on sys.path). A file read with a one-line error naming it; names refused before any work,
each valid one listed; a run that raised kept with its error, run again, and counted as remaining; merges that prefer
a finished run and refuse two finished runs of one key with different settings; superseded records never dropped."""
import json, sys
from pathlib import Path


class StudyError(ValueError):
    "A file or an argument a script refuses: the message is one line naming it, the problem and the fix."


def fail(e, prog=None):
    "Say `e` on one line on stderr, then exit with status 2 (no traceback)."
    print(f"{prog or Path(sys.argv[0]).name}: {e}", file=sys.stderr)
    sys.exit(2)


def read_json(path, default=None) -> dict:
    """The JSON object in `path` (a copy of `default` where there is no such file and a default is given); a file that
    cannot be read, is damaged JSON or holds no object refused (StudyError naming the file and the problem)."""
    p = Path(path)
    if default is not None and not p.exists(): return json.loads(json.dumps(default))
    try: text = p.read_text(encoding='utf-8')
    except UnicodeDecodeError as e: raise StudyError(f"{p}: not a text file ({e.reason} at byte {e.start})") from None
    except OSError as e: raise StudyError(f"{p}: cannot be read ({e.strerror or e})") from None
    try: x = json.loads(text)
    except json.JSONDecodeError as e:
        raise StudyError(f"{p}: damaged JSON ({e.msg} at line {e.lineno}, column {e.colno}): restore the file "
                         f"(git checkout, or the copy it was made from)") from None
    if not isinstance(x, dict): raise StudyError(f"{p}: holds a JSON {type(x).__name__}, not the object a study writes")
    return x


def check_names(given, valid, flag: str) -> list:
    "`given` when every name is one of `valid`; else StudyError naming the unknown ones and listing every valid one."
    bad = [g for g in given if g not in valid]
    if bad: raise StudyError(f"{flag}: unknown {', '.join(map(repr, bad))}; the valid ones: {'; '.join(valid)}")
    return list(given)


def failed(run) -> bool:
    "Did this stored run raise (it holds its `error`)? It is run again, and its outcome is no input of any verdict."
    return isinstance(run, dict) and run.get('error') is not None


def finished(runs: dict) -> dict:
    "The runs of `runs` ({key: run}) that finished (not `failed`): the only ones any claim is judged with."
    return {k: r for k, r in runs.items() if not failed(r)}


def remaining(order, runs: dict) -> list:
    "The keys of `order` still to run: absent from `runs`, or stored as failed."
    return [k for k in order if k not in runs or failed(runs[k])]


def merge_runs(mine: dict, other: dict, same, names=('OUT', 'OTHER')) -> dict:
    """`mine` and `other` ({key: run}) merged. A key in one file only: its run. In both: the finished run over a failed
    one (either way round), `mine` where both failed or both finished alike (`same(run)`: what makes two runs the same
    run, their settings); two finished runs with different settings refused, each key named, nothing merged."""
    out, clash = dict(mine), []
    for k, o in other.items():
        m = out.get(k)
        if m is None or (failed(m) and not failed(o)): out[k] = o
        elif not failed(m) and not failed(o) and same(m) != same(o): clash.append(k)
    if clash:
        raise StudyError(f"{names[0]} and {names[1]} hold finished runs with different settings under "
                         f"{', '.join(map(repr, clash))}: nothing merged; rerun one of them, or keep the files apart")
    return out


def supersede(holder: dict, key: str, old) -> dict:
    """`old` kept under holder[key], nothing there dropped: the first as it is (the form the files hold), a later one
    makes holder[key] a list, oldest first. Returns `holder`."""
    if key not in holder: holder[key] = old
    else: holder[key] = superseded(holder, key) + [old]
    return holder


def superseded(holder: dict, key: str) -> list:
    "Every record `supersede` kept under holder[key], oldest first (none: [])."
    x = holder.get(key)
    return [] if x is None else list(x) if isinstance(x, list) else [x]
