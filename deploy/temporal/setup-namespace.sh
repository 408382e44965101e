#!/bin/sh
# The namespace campaigns run in and mediaflow's search attributes (search-attributes.txt beside
# this file, the list in workflows/runtime/search-attributes.ts), each created only when missing, so it is
# safe on every start. Run by docker-compose.yml (admin-tools image) and by the local cluster
# (bench/lib/cluster.ts) with the `temporal` CLI; reads TEMPORAL_ADDRESS and NAMESPACE.
# A namespace just created takes a moment to reach the frontend's cache, hence the waits.
set -eu
: "${NAMESPACE:=default}"
attributes="$(dirname "$0")/search-attributes.txt"
until temporal operator cluster health >/dev/null 2>&1; do sleep 0.5; done
temporal operator namespace describe -n "$NAMESPACE" >/dev/null 2>&1 ||
  temporal operator namespace create -n "$NAMESPACE" --retention 7d
until registered="$(temporal operator search-attribute list -n "$NAMESPACE" 2>/dev/null)"; do sleep 0.5; done
# One call each: the CLI pairs each --name with a --type of its own, and takes only one --type.
while IFS='=' read -r name type; do
  [ -z "$name" ] || echo "$registered" | grep -qw "$name" ||
    temporal operator search-attribute create -n "$NAMESPACE" --name "$name" --type "$type" </dev/null
done <"$attributes"
# Fail (compose retries the step) while one is still missing.
registered="$(temporal operator search-attribute list -n "$NAMESPACE")"
while IFS='=' read -r name _; do
  [ -z "$name" ] || echo "$registered" | grep -qw "$name"
done <"$attributes"
