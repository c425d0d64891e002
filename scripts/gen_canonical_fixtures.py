#!/usr/bin/env python3
"""Writes the canonical-JSON fixtures that tests/intake/canonical.rs checks byte for byte.

    python3 scripts/gen_canonical_fixtures.py

tests/fixtures/canonical_cases.jsonl: one case a line, {"input", "canonical", "digest"}:
    input      JSON text of an object, as an intake might receive it;
    canonical  json.dumps(json.loads(input), sort_keys=True, separators=(',', ':'),
               ensure_ascii=False, allow_nan=False);
    digest     sha256 hex of canonical's UTF-8 bytes.
tests/fixtures/canonical_errors.jsonl: {"input", "python_error"}: inputs Python refuses
(in json.loads, in json.dumps, or when encoding to UTF-8); Rust must refuse them too.

Deterministic: a fixed seed, so re-running it gives the same files.
"""

import hashlib
import json
import math
import os
import random
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT_DIR = os.path.join(ROOT, "tests", "fixtures")


def canonical(obj):
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def python_result(text):
    """(canonical, digest) or raises."""
    obj = json.loads(text)
    if not isinstance(obj, dict):
        raise TypeError("not an object")
    out = canonical(obj)
    return out, hashlib.sha256(out.encode("utf-8")).hexdigest()


rng = random.Random(20261129)
inputs = []


def add(text):
    inputs.append(text)


def num_case(token):
    add('{"x":%s}' % token)


# --- floats written in many textual shapes ---------------------------------
for tok in [
    "1.0", "100.0", "1e16", "1E16", "1e+16", "1.0e16", "9999999999999998.0", "1e15", "123456789012345.6",
    "1e-5", "1E-05", "0.0001", "0.00012345", "0.00001", "1.5e-7", "0.1", "0.2", "0.30000000000000004",
    "0.3", "1.7976931348623157e308", "1.7976931348623157E+308", "5e-324", "4.9406564584124654e-324",
    "2.2250738585072014e-308", "2.2250738585072009e-308", "1e-320", "1e-400", "-1e-400", "-0.0",
    "0.0", "0e0", "-0e10", "0.000", "1.2345678901234568e16", "12345678901234567890.0",
    "123456789012345678.0", "1e22", "1e23", "1e21", "1.0000000000000002", "0.1000000000000000055511151231257827",
    "3.141592653589793238462643383279", "2.718281828459045", "-1.5", "-123.456e3", "6.02214076e23",
    "6.62607015e-34", "1e100", "1e-100", "1e308", "1e-307", "9007199254740993.0", "9007199254740992.0",
    "4503599627370496.5", "0.5", "1.25e2", "12.5E-1", "100e-2", "1e0", "1.0e-4", "9.999999999999999e-5",
    "9.9999999999999995e15", "99999999999999999.0", "1e-4", "0.001", "1234.5678", "-9.87654321e-12",
]:
    num_case(tok)

# --- integers ------------------------------------------------------------------
for tok in ["0", "-0", "1", "-1", "9007199254740993", "18446744073709551616", "-9223372036854775809",
            "123456789012345678901234567890123456789012345678901234567890", "-" + "9" * 300, "42"]:
    num_case(tok)

# --- random floats: bit patterns, 0.1+0.2 style sums, decimal strings ----------------
for _ in range(25):
    bits = rng.getrandbits(64)
    x = struct.unpack("<d", struct.pack("<Q", bits))[0]
    if math.isfinite(x):
        num_case(repr(x))
for _ in range(10):
    x = struct.unpack("<d", struct.pack("<Q", rng.getrandbits(52)))[0]  # subnormals
    num_case(repr(x))
for _ in range(10):
    a, b = rng.randint(1, 99) / 10, rng.randint(1, 99) / 100
    num_case(repr(a + b))
for _ in range(10):
    digits = "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 25)))
    exp = rng.randint(-30, 30)
    num_case("%s.%se%d" % (rng.randint(0, 9), digits, exp))

# --- strings: escapes, unicode, astral ---------------------------------------------------
for s in [
    r'"plain"', r'"quote \" backslash \\ slash \/"', r'"\n\r\t\b\f"', r'"\u0000\u0001\u001f\u0020"',
    r'"\u007f del"', '"\x7f raw del"', r'"\u00e9 \u65e5\u672c"', '"こんにちは、世界"', '"株式会社サンプル"',
    '"emoji 😀 🇯🇵"', r'"\ud83d\ude00 escaped astral"', '"\U0001f600\U00010348"', r'"\u2028\u2029"',
    '"\u2028 raw line sep"', '"ｶﾀｶﾅ ＦＵＬＬ"', r'"\uffff\ufffe"', '"tab\\tin\\tstring"', '""',
    '"e\u0301 combining"', r'"<script>alert(1)</script>"', '"\u202e bidi"',
]:
    add('{"s":%s}' % s)

# --- keys: order, unicode, duplicates, escapes ----------------------------------------------
add('{"b":1,"a":2,"c":3}')
add('{"B":1,"a":2,"A":3,"b":4}')
add('{"é":1,"e":2,"z":3,"日本":4,"😀":5,"\uff5e":6}')
add('{"\U0001f600":1,"\uffff":2}')  # astral sorts after U+FFFF by code point
add('{"a":1,"a":2}')
add('{"a":{"x":1},"b":0,"a":[1]}')
add('{"k\\"ey":1,"k\\\\ey":2,"k\\ney":3}')
add('{"":1," ":2,"\\u0000":3}')
add('{"a":1,"A":1,"_":1,"-":1,"0":1}')

# --- structure --------------------------------------------------------------------
add("{}")
add('{"a":[]}')
add('{"a":[3,1,2],"b":[{"z":1,"y":2},{"b":[]}]}')
add('{"n":null,"t":true,"f":false}')
add('  {\n  "spaced" : [ 1 , 2 , { "in" : "side" } ] ,\t"x" : 1.50\n}  ')
add('{"d":' + "[" * 40 + "1" + "]" * 40 + "}")
add('{"d":' + '{"k":' * 40 + "1" + "}" * 40 + "}")

# --- realistic form payloads ------------------------------------------------------------------
add(json.dumps({"name": "山田 太郎", "email": "taro@example.jp", "message": "お問い合わせです。\n見積もりをお願いします。",
                "utm_source": "google", "_csrf": "x9f", "submitted_at": "2026-11-29T10:15:30.123Z", "score": 0.1}))
add(json.dumps({"name": "Jane O'Neil", "email": "jane@example.com", "amount": 1234.50, "items": [3, 1, 2]},
               ensure_ascii=True))

# --- random objects --------------------------------------------------------------------------
ALPHABET = "abcXYZ_-09 éあ日😀\"\\\n\t\x01\x7f"


def rand_string():
    return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 8)))


def rand_value(depth):
    r = rng.random()
    if depth > 3 or r < 0.4:
        return rng.choice([
            None, True, False, rng.randint(-10**20, 10**20), rng.uniform(-1e6, 1e6),
            rng.random() * 10 ** rng.randint(-30, 30), rand_string(), 0.0, -0.0,
        ])
    if r < 0.7:
        return [rand_value(depth + 1) for _ in range(rng.randint(0, 4))]
    return {rand_string(): rand_value(depth + 1) for _ in range(rng.randint(0, 5))}


for i in range(40):
    obj = {rand_string(): rand_value(0) for _ in range(rng.randint(1, 6))}
    add(json.dumps(obj, ensure_ascii=bool(i % 2), indent=None if i % 3 else 1))

# --- error cases: Python refuses them -----------------------------------------------------------
error_inputs = [
    '{"x":NaN}', '{"x":Infinity}', '{"x":-Infinity}', '{"x":1e400}', '{"x":-1e400}', '{"x":[1.8e308]}',
    '[1,2]', '"string"', '42', 'null', 'true', '', '   ', '{', '{"a":1,}', '{"a" 1}', "{'a':1}",
    '{"a":1} trailing', '{"a":01}', '{"a":.5}', '{"a":1.}', '{"a":+1}', '{"a":"\x01 raw control"}',
    '{"a":"\\ud800"}', '{"a":"\\udc00"}', '{"a":"\\ud800\\u0041"}', '{"\\udfff":1}', '{"a":"\\x41"}',
    '\ufeff{"a":1}', '{"a":1}{"b":2}', '{"a":tru}', '{"a":"unterminated}',
]

cases = []
for text in inputs:
    out, digest = python_result(text)
    cases.append({"input": text, "canonical": out, "digest": digest})

errors = []
for text in error_inputs:
    try:
        python_result(text)
    except (ValueError, TypeError, UnicodeEncodeError) as e:
        errors.append({"input": text, "python_error": "%s: %s" % (type(e).__name__, e)})
    else:
        sys.exit("expected Python to refuse %r" % text)

os.makedirs(OUT_DIR, exist_ok=True)
with open(os.path.join(OUT_DIR, "canonical_cases.jsonl"), "w", encoding="utf-8", newline="\n") as f:
    for c in cases:
        f.write(json.dumps(c, ensure_ascii=True) + "\n")
with open(os.path.join(OUT_DIR, "canonical_errors.jsonl"), "w", encoding="utf-8", newline="\n") as f:
    for c in errors:
        f.write(json.dumps(c, ensure_ascii=True) + "\n")
print("wrote %d cases, %d error cases (Python %s)" % (len(cases), len(errors), sys.version.split()[0]))
