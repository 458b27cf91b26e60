"""The 1,000-file slice of the eval kit's `large` corpus that the semantic and
team-cache benchmarks share: every k-th tracked file, so that every project is
in it, committed to a fresh repository."""
import os
import shutil
import subprocess


def make_slice(corpora, work, env, size=1000):
    """Builds the slice under `work`/slice and returns its path."""
    large = os.path.join(corpora, "large")
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=large, env=env, stdout=subprocess.PIPE, text=True, check=True).stdout
    files = [f for f in listed.split("\0") if f]
    pick = files[::max(1, len(files) // size)][:size]
    slice_ = os.path.join(work, "slice")
    os.makedirs(slice_)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=slice_, env=env, check=True)
    for f in pick:
        dst = os.path.join(slice_, f)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copyfile(os.path.join(large, f), dst)
    subprocess.run(["git", "add", "-A"], cwd=slice_, env=env, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "slice"], cwd=slice_, env=env, check=True)
    return slice_
