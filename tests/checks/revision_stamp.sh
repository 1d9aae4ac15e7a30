#!/usr/bin/env bash
# CTest revision_stamp: cmake/revision.cmake stamps the tree's revision as it
# is when it runs (before every build), not as it was at configure time: in a
# scratch repository, a commit, an edit and the next commit each give the
# revision `git describe --always --dirty --tags` gives then, and an
# unchanged revision leaves the generated file untouched (nothing rebuilds).
#   tests/checks/revision_stamp.sh
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/repo/src/util"
cp "$here/src/util/version.cpp.in" "$tmp/repo/src/util/"
cd "$tmp/repo"
git init -q
git -c user.name=t -c user.email=t@localhost commit -q --allow-empty -m one
stamp() { cmake -DSOURCE_DIR="$tmp/repo" -DOUT="$tmp/version.cpp" -DPROJECT_VERSION=9.9.9 -P "$here/cmake/revision.cmake"; }
expect() {
  grep -q "revision() { return \"$1\"; }" "$tmp/version.cpp" ||
    { echo "revision_stamp: want $1, got: $(grep 'revision()' "$tmp/version.cpp")" >&2; exit 1; }
}
stamp
expect "$(git rev-parse --short HEAD)"
before=$(stat -c %y "$tmp/version.cpp")
sleep 1
stamp
[ "$(stat -c %y "$tmp/version.cpp")" = "$before" ] ||
  { echo "revision_stamp: the same revision rewrote the generated file" >&2; exit 1; }
git add src && echo "// edit" >>src/util/version.cpp.in
stamp
expect "$(git rev-parse --short HEAD)-dirty"
git -c user.name=t -c user.email=t@localhost commit -q -am two
stamp
expect "$(git rev-parse --short HEAD)"
echo "revision_stamp: commit, edit and next commit each stamped as the tree was"
