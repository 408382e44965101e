#!/usr/bin/env bash
# Makes the local test certificates outputs are signed with when no key of your own is given
# (MEDIAFLOW_C2PA_CERT / MEDIAFLOW_C2PA_KEY, docs/provenance.md): a private CA and two leaves it
# issues, one for mediaflow and one for the emulator (which signs its outputs as a provider would),
# each with what C2PA asks of a signing certificate: not a CA, digitalSignature only, the
# emailProtection extended key usage, a subject and authority key id. ES256 (P-256).
# Filed under `${MEDIAFLOW_STATE_DIR:-.state}/c2pa/`, private (0700/0600). Idempotent: kept while
# the leaves are valid for at least another 30 days. Readers call these signers untrusted: the CA is
# ours alone (`mediaflow verify --trust .state/c2pa/ca.pem` trusts it on this machine).
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${MEDIAFLOW_STATE_DIR:-.state}/c2pa"
valid() { [ -f "$dir/$1.pem" ] && [ -f "$dir/$1.key" ] && openssl x509 -checkend 2592000 -noout -in "$dir/$1.pem" >/dev/null 2>&1; }
if valid signer && valid emulator; then exit 0; fi
command -v openssl >/dev/null || { echo "make-test-certificates: openssl is needed (apt-get install openssl)" >&2; exit 1; }
umask 077
mkdir -p "$dir"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cat >"$work/ca.cnf" <<'CNF'
[req]
distinguished_name = dn
[dn]
[ca]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
[leaf]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = emailProtection
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid,issuer
CNF
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$work/ca.key" 2>/dev/null
openssl req -new -x509 -key "$work/ca.key" -sha256 -days 3650 -config "$work/ca.cnf" -extensions ca \
  -subj "/CN=mediaflow local test CA/O=mediaflow (test, untrusted)" -out "$dir/ca.pem"
leaf() { # name, common name
  openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$dir/$1.key" 2>/dev/null
  openssl req -new -key "$dir/$1.key" -subj "/CN=$2/O=mediaflow (test, untrusted)" -out "$work/$1.csr"
  openssl x509 -req -in "$work/$1.csr" -CA "$dir/ca.pem" -CAkey "$work/ca.key" -set_serial "0x$(openssl rand -hex 16)" \
    -sha256 -days 825 -extfile "$work/ca.cnf" -extensions leaf -out "$work/$1.leaf.pem" 2>/dev/null
  # The chain a manifest carries: the leaf first, then its issuer.
  cat "$work/$1.leaf.pem" "$dir/ca.pem" >"$dir/$1.pem"
}
leaf signer "mediaflow test signer"
leaf emulator "mediaflow emulator (test provider)"
echo "made the local test certificates in $dir (outputs signed with them read as untrusted)"
