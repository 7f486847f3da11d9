#!/bin/sh
# Regenerates the golden data in ../ with the Erlang/OTP found on PATH (OTP 25).
set -e
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
erlc -o "$tmp" "$here"/*.erl
for g in terms format calls; do
    erl -noshell -pa "$tmp" -eval "gen_$g:main([\"$here/../$g.txt\"]), halt()."
done
