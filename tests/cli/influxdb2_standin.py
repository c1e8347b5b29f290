#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""An InfluxDB 2.x write endpoint for `pvecg ship`, since Debian has no
InfluxDB 2.x: it answers /api/v2/write the way InfluxDB 2.7 does, status,
JSON body and order of checks, as its write API documentation
(https://docs.influxdata.com/influxdb/v2/api/#operation/PostWrite,
https://docs.influxdata.com/influxdb/v2/write-data/troubleshoot/) and its
source (http/write_handler.go, http/points, models/points.go,
kit/transport/http/error_handler.go) say, and keeps what it is sent.

usage: influxdb2_standin.py PORT_FILE LOG_FILE POINTS_FILE [options]
  --org NAME          the organization (default "pve")
  --bucket NAME       the bucket (default "proxmox")
  --token TOKEN       the API token (default "secret-token")
  --retention SECONDS the bucket's retention, 0 = infinite (default 0)
  --max-body BYTES    a larger (inflated) body answers 413; 0 = no limit
  --busy N            the first N writes answer 429, `Retry-After: 1`
  --unavailable N     the next N writes answer 503, `Retry-After: 1`
  --unparsable REGEX  a line REGEX finds (re.search) is refused by the
                      parser ("invalid field format"), to reach the 400
                      with lines that are otherwise valid

It listens on 127.0.0.1 (HTTP/1.1, kept alive) and writes its port to
PORT_FILE whole.  Requests are handled one at a time.

POST /api/v2/write?org=ORG&bucket=BUCKET[&precision=ns|us|ms|s]
(Content-Encoding: gzip understood), checked in InfluxDB's order:
  401 {"code":"unauthorized","message":"unauthorized access"} unless the
      Authorization header is exactly "Token TOKEN";
  400 {"code":"invalid","message":"invalid precision; valid precision
      units are ns, us, ms, and s"} (precision is checked first, in
      decodeWriteRequest);
  404 {"code":"not found","message":"bucket not found"} (no bucket=),
  400 {"code":"invalid","message":"Please provide either orgID or org"},
  404 {"code":"not found","message":"organization name \\"ORG\\" not found"},
  404 {"code":"not found","message":"bucket \\"BUCKET\\" not found"};
  429 / 503 while --busy / --unavailable last;
  413 {"code":"request too large","message":"unable to read data: points
      batch is too large"}, nothing written;
  400 {"code":"invalid","message":"writing requires points"} (empty body);
  400 {"code":"invalid","message":"unable to parse '<line>': <reason>"}
      when any line is not line protocol (one such sentence per refused
      line, joined by newlines, as models.ParsePointsWithPrecision does),
      nothing written.  The parser is models/points.go's scanner, reasons
      and all ("missing fields", "invalid number", "bad timestamp", "time
      outside range -9223372036854775806 - 9223372036854775806", ...);
  422 {"code":"unprocessable entity","message":"failure writing points to
      database: partial write: dropped N points outside retention policy
      of duration 72h0m0s - oldest point <series key> at <time> dropped
      because it violates a Retention Policy Lower Bound at <bound>, newest
      point ... dropped=N for database: 0c7b2a9e1f3d4e5a for retention
      policy: autogen"} when points are older than now - retention: the
      others are written;
  204 otherwise.
Error bodies are encoded as Go's json.Marshal does (<, >, & as \\u003c...),
with Content-Type: application/json; charset=utf-8 and
X-Platform-Error-Code.  A point without a timestamp gets the time of the
request.  Other paths: 404 {"code":"not found","message":"path not
found"}; GET /health: {"status":"pass"}; GET /points: the points kept, as
a JSON array.

POINTS_FILE: the points kept, one JSON object a line, {"measurement":..,
"tags":{..},"field":..,"time":<ns>,"value":..} sorted by measurement, tags,
field and time; rewritten whole (tmp + rename) after each write, and read
back at start, so a restarted stand-in keeps its data as a store would.
One value per series, field and time: a later write of it replaces it.
LOG_FILE: per request "<method> <path?query> <status> <body bytes as
received> <non-blank lines of the body>".
"""
import argparse
import datetime
import gzip
import http.server
import json
import math
import os
import re
import socketserver
import sys
import threading
import time
import traceback
import urllib.parse
import zlib

BUCKET_ID = "0c7b2a9e1f3d4e5a"
MIN_NANO = -(2 ** 63) + 2  # models.MinNanoTime: 1677-09-21T00:12:43.145224194Z
MAX_NANO = 2 ** 63 - 2  # models.MaxNanoTime: 2262-04-11T23:47:16.854775806Z
MAX_KEY_LENGTH = 65535
PRECISIONS = {"ns": 1, "us": 1000, "ms": 1000000, "s": 1000000000}
TIME_OUT_OF_RANGE = "time outside range %d - %d" % (MIN_NANO, MAX_NANO)

parser = argparse.ArgumentParser(
    usage="%(prog)s PORT_FILE LOG_FILE POINTS_FILE [options]")
parser.add_argument("port_file")
parser.add_argument("log_file")
parser.add_argument("points_file")
parser.add_argument("--org", default="pve")
parser.add_argument("--bucket", default="proxmox")
parser.add_argument("--token", default="secret-token")
parser.add_argument("--retention", type=int, default=0)
parser.add_argument("--max-body", type=int, default=0)
parser.add_argument("--busy", type=int, default=0)
parser.add_argument("--unavailable", type=int, default=0)
parser.add_argument("--unparsable", type=re.compile, default=None)
opts = parser.parse_args()

lock = threading.Lock()
points = {}  # (measurement, ((tag, value), ...), field, time ns) -> value
busy_left = opts.busy
unavailable_left = opts.unavailable


# --- line protocol, after models/points.go (InfluxDB 2.x) ---

class Malformed(Exception):
    pass


TAG_KEY, TAG_VALUE, FIELDS = range(3)


def at(buf, i):
    return buf[i] if 0 <= i < len(buf) else ""


def is_numeric(c):
    return "0" <= c <= "9" or c == "."


def skip_whitespace(buf, i):
    while i < len(buf) and buf[i] in " \t\0":
        i += 1
    return i


def scan_line(buf, i):
    start, quoted, fields, equals, commas = i, False, False, 0, 0
    while i < len(buf):
        c = buf[i]
        if c == "\\":
            i += 2
            continue
        if c == " ":
            fields = True
        if fields:
            if not quoted and c == "=":
                i += 1
                equals += 1
                continue
            if not quoted and c == ",":
                i += 1
                commas += 1
                continue
            if c == '"' and equals > commas:
                i += 1
                quoted = not quoted
                continue
        if c == "\n" and not quoted:
            break
        i += 1
    return i, buf[start:i]


def scan_to(buf, i, stop):
    start = i
    while i < len(buf):
        if buf[i] == stop and (i == 0 or buf[i - 1] != "\\"):
            break
        i += 1
    return i, buf[start:i]


def scan_measurement(buf, i):
    if i >= len(buf) or buf[i] == ",":
        raise Malformed("missing measurement")
    while True:
        i += 1
        if i >= len(buf):
            raise Malformed("missing fields")
        if buf[i - 1] == "\\":
            continue
        if buf[i] == ",":
            return TAG_KEY, i + 1
        if buf[i] == " ":
            return FIELDS, i


def scan_tags_key(buf, i):
    if i >= len(buf) or buf[i] in " ,=":
        raise Malformed("missing tag key")
    while True:
        i += 1
        if i >= len(buf) or (buf[i] in " ," and buf[i - 1] != "\\"):
            raise Malformed("missing tag value")
        if buf[i] == "=" and buf[i - 1] != "\\":
            return i + 1


def scan_tags_value(buf, i):
    if i >= len(buf) or buf[i] in ", ":
        raise Malformed("missing tag value")
    while True:
        i += 1
        if i >= len(buf):
            raise Malformed("missing fields")
        if buf[i] == "=" and buf[i - 1] != "\\":
            raise Malformed("invalid tag format")
        if buf[i] == "," and buf[i - 1] != "\\":
            return TAG_KEY, i + 1
        if buf[i] == " " and buf[i - 1] != "\\":
            return FIELDS, i


def scan_key(buf, i):
    """The end of the key and the key with its tags sorted, plus the
    measurement and the raw "k=v" tags."""
    start = skip_whitespace(buf, i)
    state, i = scan_measurement(buf, start)
    if state != TAG_KEY:
        return i, buf[start:i], buf[start:i], []
    indices = []
    while state != FIELDS:
        if state == TAG_KEY:
            indices.append(i)
            i = scan_tags_key(buf, i)
            state = TAG_VALUE
        else:
            state, i = scan_tags_value(buf, i)
    indices.append(i + 1)
    measurement = buf[start:indices[0] - 1]
    tags = [buf[indices[j]:indices[j + 1] - 1] for j in range(len(indices) - 1)]
    keys = [scan_to(t, 0, "=")[1] for t in tags]
    if len(set(keys)) != len(keys):
        raise Malformed("duplicate tags")
    order = sorted(range(len(tags)), key=lambda j: raw_bytes(keys[j]))
    tags = [tags[j] for j in order]
    return i, measurement + "".join("," + t for t in tags), measurement, tags


def scan_number(buf, i):
    start, n = i, len(buf)
    is_int = is_unsigned = decimal = scientific = False
    if i < n and buf[i] == "-":
        i += 1
        if i == n:
            raise Malformed("invalid number")
    while i < n:
        c = buf[i]
        if c in ", ":
            break
        if c == "i" and i > start and not (is_int or is_unsigned):
            is_int = True
            i += 1
            continue
        if c == "u" and i > start and not (is_int or is_unsigned):
            is_unsigned = True
            i += 1
            continue
        if c == ".":
            if decimal:
                raise Malformed("invalid number")
            decimal = True
        if i > start and c in "eE":
            scientific = True
            i += 1
            continue
        if c in "+-" and buf[i - 1] in "eE":
            i += 1
            continue
        if not is_numeric(c):  # NaN and the like too
            raise Malformed("invalid number")
        i += 1
    if (is_int or is_unsigned) and (decimal or scientific):
        raise Malformed("invalid number")
    digits = i - start - is_int - decimal - (buf[start] == "-")
    if digits == 0:
        raise Malformed("invalid number")
    if is_int:
        if buf[i - 1] != "i":
            raise Malformed("invalid number")
        text = buf[start:i - 1]
        if not -2 ** 63 <= int(text) < 2 ** 63:
            raise Malformed('unable to parse integer %s: strconv.ParseInt: '
                            'parsing "%s": value out of range' % (text, text))
    elif is_unsigned:
        if buf[i - 1] != "u" or buf[start] == "-":
            raise Malformed("invalid number")
        text = buf[start:i - 1]
        if int(text) >= 2 ** 64:
            raise Malformed('unable to parse unsigned %s: strconv.ParseUint: '
                            'parsing "%s": value out of range' % (text, text))
    else:
        try:
            if math.isinf(float(buf[start:i])):
                raise ValueError
        except ValueError:
            raise Malformed("invalid float") from None
    return i


def scan_boolean(buf, i):
    start, n = i, len(buf)
    if i < n and buf[i] not in "tfTF":
        raise Malformed("invalid boolean")
    i += 1
    while i < n and buf[i] not in ", ":
        i += 1
    word = buf[start:i]
    if len(word) == 1 or word in ("true", "True", "TRUE",
                                  "false", "False", "FALSE"):
        return i
    raise Malformed("invalid boolean")


def scan_fields(buf, i):
    start = i = skip_whitespace(buf, i)
    quoted, equals, commas, n = False, 0, 0, len(buf)
    while i < n:
        c = buf[i]
        if c == "\\" and i + 1 < n:
            i += 2
            continue
        if c == '"' and equals > commas:
            quoted = not quoted
            i += 1
            continue
        if c == "=" and not quoted:
            equals += 1
            if at(buf, i - 1) in (" ", ",") and at(buf, i - 2) != "\\":
                raise Malformed("missing field key")
            if i + 1 >= n or buf[i + 1] in ", ":
                raise Malformed("missing field value")
            if is_numeric(buf[i + 1]) or buf[i + 1] in "-Nn":
                i = scan_number(buf, i + 1)
                continue
            if buf[i + 1] != '"':
                i = scan_boolean(buf, i + 1)
                continue
        if c == "," and not quoted:
            commas += 1
        if c == " " and not quoted:
            break
        i += 1
    if quoted:
        raise Malformed("unbalanced quotes")
    if equals == 0 or commas != equals - 1:
        raise Malformed("invalid field format")
    return i, buf[start:i]


def scan_field_value(buf, i):
    start, quoted = i, False
    while i < len(buf):
        if buf[i] == "\\" and i + 1 < len(buf) and buf[i + 1] in '"\\':
            i += 2
            continue
        if buf[i] == '"':
            i += 1
            quoted = not quoted
            continue
        if buf[i] == "," and not quoted:
            break
        i += 1
    return i, buf[start:i]


def walk_fields(buf):
    while buf:
        i, key = scan_to(buf, 0, "=")
        buf = buf[i + 1:]
        i, value = scan_field_value(buf, 0)
        buf = buf[i + 1:]
        yield key, value


def scan_time(buf, i):
    start = i = skip_whitespace(buf, i)
    while i < len(buf) and buf[i] not in "\n ":
        if not (i == start and buf[i] == "-") and not "0" <= buf[i] <= "9":
            raise Malformed("bad timestamp")
        i += 1
    return i, buf[start:i]


def unescape(text, chars):
    out, i = [], 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text) and text[i + 1] in chars:
            i += 1
        out.append(text[i])
        i += 1
    return "".join(out)


def raw_bytes(text):
    return text.encode("utf-8", "surrogateescape")


def clean(text):  # bytes that were not UTF-8 -> U+FFFD
    return raw_bytes(text).decode("utf-8", "replace")


def field_value(raw):
    if raw.startswith('"'):
        return clean(unescape(raw[1:-1], '"\\'))
    if raw and raw[0] in "0123456789-.nNiIu":
        if raw.endswith("i") or raw.endswith("u"):
            return int(raw[:-1])
        return float(raw)
    return raw in ("t", "T", "true", "True", "TRUE")


def parse_point(line, precision, now_ns):
    """(series key, measurement, tags, {field: value}, time ns)"""
    pos, key, measurement, tags = scan_key(line, 0)
    if not key:
        raise Malformed("missing measurement")
    key_len = len(raw_bytes(key))
    if key_len > MAX_KEY_LENGTH:
        raise Malformed("max key length exceeded: %d > %d"
                        % (key_len, MAX_KEY_LENGTH))
    pos, fields = scan_fields(line, pos)
    if not fields:
        raise Malformed("missing fields")
    values = {}
    for fkey, fraw in walk_fields(fields):
        size = key_len + 4 + len(raw_bytes(fkey))
        if size > MAX_KEY_LENGTH:
            raise Malformed("max key length exceeded: %d > %d"
                            % (size, MAX_KEY_LENGTH))
        if fkey:
            values[clean(unescape(fkey, ",= "))] = field_value(fraw)
    pos, ts = scan_time(line, pos)
    mult = PRECISIONS[precision]
    if not ts:
        t = now_ns // mult * mult
    else:
        try:
            t = int(ts)
        except ValueError:
            raise Malformed('strconv.ParseInt: parsing "%s": invalid syntax'
                            % ts) from None
        if not -2 ** 63 <= t < 2 ** 63:
            raise Malformed('strconv.ParseInt: parsing "%s": value out of '
                            'range' % ts)
        t *= mult
        if not MIN_NANO <= t <= MAX_NANO:
            raise Malformed(TIME_OUT_OF_RANGE)
        if line[pos:].strip(" "):
            raise Malformed("point is invalid")
    tag_pairs = []
    for tag in tags:
        i, tkey = scan_to(tag, 0, "=")
        tag_pairs.append((clean(unescape(tkey, ",= ")),
                          clean(unescape(tag[i + 1:], ",= "))))
    return (key, clean(unescape(measurement, ", ")), tuple(sorted(tag_pairs)),
            values, t)


def parse_points(text, precision, now_ns):
    """The points, or raise Malformed with InfluxDB's whole message."""
    parsed, failed, pos = [], [], 0
    while pos < len(text):
        pos, block = scan_line(text, pos)
        pos += 1
        start = skip_whitespace(block, 0)
        if start >= len(block) or block[start] == "#":
            continue
        line = block[start:].removesuffix("\n")
        try:
            if opts.unparsable is not None and opts.unparsable.search(line):
                raise Malformed("invalid field format")
            parsed.append(parse_point(line, precision, now_ns))
        except Malformed as e:
            failed.append("unable to parse '%s': %s" % (line, e))
    if failed:
        raise Malformed("\n".join(failed))
    return parsed


# --- how Go prints things ---

def go_json_string(text):
    out = ['"']
    for ch in text:
        o = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch in "\n\r\t":
            out.append({"\n": "\\n", "\r": "\\r", "\t": "\\t"}[ch])
        elif o < 0x20 or ch in "<>&" or o in (0x2028, 0x2029):
            out.append("\\u%04x" % o)
        elif 0xd800 <= o <= 0xdfff:  # a byte that was not UTF-8
            out.append("\\ufffd")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def rfc3339nano(ns):
    seconds, frac = divmod(ns, 1000000000)
    t = datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=seconds)
    text = "%04d-%02d-%02dT%02d:%02d:%02d" % (
        t.year, t.month, t.day, t.hour, t.minute, t.second)
    if frac:
        text += "." + ("%09d" % frac).rstrip("0")
    return text + "Z"


def go_duration(ns):
    """time.Duration.String()"""
    if ns == 0:
        return "0s"
    sign, u = ("-" if ns < 0 else ""), abs(ns)

    def frac(v, digits):
        whole, rest = divmod(v, 10 ** digits)
        rest = ("%0*d" % (digits, rest)).rstrip("0")
        return str(whole) + ("." + rest if rest else "")
    if u < 1000:
        return sign + "%dns" % u
    if u < 1000000:
        return sign + frac(u, 3) + "\u00b5s"
    if u < 1000000000:
        return sign + frac(u, 6) + "ms"
    seconds = u // 1000000000
    text = frac(u % 60000000000, 9) + "s"
    if seconds >= 60:
        text = "%dm" % (seconds // 60 % 60) + text
        if seconds >= 3600:
            text = "%dh" % (seconds // 3600) + text
    return sign + text


# --- the store ---

def point_record(k, value):
    measurement, tags, field, t = k
    return {"measurement": measurement, "tags": dict(tags), "field": field,
            "time": t, "value": value}


def save_points():
    tmp = opts.points_file + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        for k in sorted(points):
            f.write(json.dumps(point_record(k, points[k]), ensure_ascii=False,
                               separators=(",", ":")) + "\n")
    os.rename(tmp, opts.points_file)


def load_points():
    try:
        f = open(opts.points_file, encoding="utf-8")
    except FileNotFoundError:
        return
    with f:
        for line in f:
            try:
                p = json.loads(line)
                points[(p["measurement"], tuple(sorted(p["tags"].items())),
                        p["field"], p["time"])] = p["value"]
            except (ValueError, KeyError, AttributeError, TypeError):
                pass


def error(status, code, message, extra=()):
    body = '{"code":%s,"message":%s}' % (go_json_string(code),
                                         go_json_string(message))
    headers = [("Content-Type", "application/json; charset=utf-8"),
               ("X-Platform-Error-Code", code)] + list(extra)
    return status, headers, body.encode("utf-8")


def retention_message(dropped, bound):
    oldest = newest = dropped[0]
    for p in dropped:
        if p[4] < oldest[4]:
            oldest = p
        if p[4] > newest[4]:
            newest = p
    b = rfc3339nano(bound)

    def drop(which, p):
        return ("%s point %s at %s dropped because it violates a Retention "
                "Policy Lower Bound at %s" % (which, p[0], rfc3339nano(p[4]), b))
    return ("failure writing points to database: partial write: dropped %d "
            "points outside retention policy of duration %s - %s, %s "
            "dropped=%d for database: %s for retention policy: autogen"
            % (len(dropped), go_duration(opts.retention * 1000000000),
               drop("oldest", oldest), drop("newest", newest), len(dropped),
               BUCKET_ID))


def inflate(raw):
    try:
        return gzip.decompress(raw), None
    except EOFError:
        reason = "unexpected EOF"
    except (gzip.BadGzipFile, zlib.error, OSError) as e:
        reason = ("gzip: invalid checksum" if "CRC" in str(e) or "length"
                  in str(e) else "flate: corrupt input")
    return None, error(400, "invalid", "unable to read data: " + reason)


def write(headers, query, raw):
    """The answer to POST /api/v2/write, and the body as parsed."""
    global busy_left, unavailable_left
    if headers.get("Authorization") != "Token " + opts.token:
        return error(401, "unauthorized", "unauthorized access"), raw
    precision = query.get("precision") or "ns"
    if precision not in PRECISIONS:
        return error(400, "invalid", "invalid precision; valid precision "
                     "units are ns, us, ms, and s"), raw
    bucket = query.get("bucket", "")
    if not bucket:
        return error(404, "not found", "bucket not found"), raw
    gzipped = headers.get("Content-Encoding", "") in ("gzip", "x-gzip")
    if gzipped and (raw[:3] != b"\x1f\x8b\x08" or len(raw) < 10):
        # gzip.NewReader refuses the header: not an influxdb error, so 500
        return error(500, "internal error",
                     "An internal error has occurred"), raw
    org = query.get("org", "")
    if not org:
        return error(400, "invalid", "Please provide either orgID or org"), raw
    if org != opts.org:
        return error(404, "not found",
                     'organization name "%s" not found' % org), raw
    if bucket != opts.bucket:
        return error(404, "not found", "bucket %s not found"
                     % json.dumps(bucket, ensure_ascii=False)), raw
    if busy_left > 0:
        busy_left -= 1
        return error(429, "too many requests", "too many requests",
                     [("Retry-After", "1")]), raw
    if unavailable_left > 0:
        unavailable_left -= 1
        return error(503, "unavailable", "service unavailable",
                     [("Retry-After", "1")]), raw
    data = raw
    if gzipped:
        data, answer = inflate(raw)
        if answer:
            return answer, raw
    if 0 < opts.max_body < len(data):
        return error(413, "request too large", "unable to read data: "
                     "points batch is too large"), data
    if not data:
        return error(400, "invalid", "writing requires points"), data
    try:
        parsed = parse_points(data.decode("utf-8", "surrogateescape"),
                              precision, time.time_ns())
    except Malformed as e:
        return error(400, "invalid", str(e)), data
    bound = time.time_ns() - opts.retention * 1000000000
    dropped = [p for p in parsed if opts.retention and p[4] < bound]
    for p in parsed:
        if not (opts.retention and p[4] < bound):
            for field, value in p[3].items():
                points[(p[1], p[2], field, p[4])] = value
    save_points()
    if dropped:
        return error(422, "unprocessable entity",
                     retention_message(dropped, bound)), data
    return (204, [], b""), data


def route(method, target, headers, raw):
    url = urllib.parse.urlsplit(target)
    query = {}
    for k, v in urllib.parse.parse_qsl(url.query, keep_blank_values=True):
        query.setdefault(k, v)
    json_type = [("Content-Type", "application/json; charset=utf-8")]
    if url.path == "/api/v2/write":
        if method != "POST":
            return error(405, "method not allowed", "allow: POST",
                         [("Allow", "POST")]), raw
        return write(headers, query, raw)
    if url.path == "/health" and method == "GET":
        return (200, json_type, b'{"status":"pass"}'), raw
    if url.path == "/points" and method == "GET":
        body = json.dumps([point_record(k, points[k]) for k in sorted(points)],
                          ensure_ascii=False).encode("utf-8")
        return (200, json_type, body), raw
    return error(404, "not found", "path not found"), raw


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as pvecg asks

    def log_message(self, *args):
        pass

    def read_body(self):
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            body = bytearray()
            while True:
                size = int(self.rfile.readline(65537).split(b";")[0], 16)
                if size == 0:
                    while self.rfile.readline(65537) not in (b"\r\n", b"\n", b""):
                        pass
                    return bytes(body)
                chunk = self.rfile.read(size)
                if len(chunk) < size:
                    raise EOFError
                body += chunk
                self.rfile.readline(65537)
        length = int(self.headers.get("Content-Length") or 0)
        if length < 0:
            raise ValueError
        body = self.rfile.read(length)
        if len(body) < length:
            raise EOFError
        return body

    def answer(self, status, headers, data):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        if status != 204:
            self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if status != 204:
            self.wfile.write(data)

    def handle_request(self):
        try:
            raw = self.read_body()
        except (ValueError, EOFError, OSError):
            self.close_connection = True
            try:
                self.answer(*error(400, "invalid", "unable to read data"))
            except OSError:
                pass
            return
        with lock:
            data = raw
            try:
                (status, headers, body), data = route(
                    self.command, self.path, self.headers, raw)
            except Exception:
                traceback.print_exc()
                status, headers, body = error(
                    500, "internal error", "An internal error has occurred")
            lines = sum(1 for line in data.split(b"\n") if line.strip())
            with open(opts.log_file, "a") as log:
                log.write("%s %s %d %d %d\n" % (
                    self.command, self.path, status, len(raw), lines))
                log.flush()
        self.answer(status, headers, body)

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = handle_request


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


load_points()
save_points()
server = Server(("127.0.0.1", 0), Handler)
with open(opts.port_file + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.rename(opts.port_file + ".tmp", opts.port_file)  # the port appears whole
server.serve_forever()
