#!/bin/sh
# A kind of session is its folder plus one entry in src/backend/kinds.c:
# no other file under src/ includes a kind's headers (and so none calls its
# functions), and nothing outside a kind includes the desktop's perception.
# $1: the source root.
root=${1:?source root}
status=0
for dir in "$root"/src/backend/*/; do
  kind=$(basename "$dir")
  found=$(grep -rlE "#include \"backend/$kind/" "$root/src" --include='*.c' --include='*.h' |
    grep -v "^$root/src/backend/$kind/" | grep -v "^$root/src/backend/kinds.c$")
  if [ -n "$found" ]; then
    echo "FAIL: outside src/backend/$kind/ and src/backend/kinds.c, these include its headers:"
    echo "$found"
    status=1
  fi
done
[ $status -eq 0 ] && echo "ok: every kind's headers are included only in its folder and kinds.c"
exit $status
