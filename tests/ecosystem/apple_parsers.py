#!/usr/bin/env python3
"""Apple-report parsers in the wild must read every .crash postmortem writes.

An independent reading of a .crash, applying the acceptance rules of the two
parsers people feed Apple reports to, checked against the JSON twin (read with
Python's json, not with postmortem's reader):

* Sentry's apple-crash-report-parser (getsentry/apple-crash-report-parser,
  src/parser.rs, AppleCrashReport::from_line_iter, release 0.6.0): what
  Sentry's symbolication uses for uploaded Apple crash reports.
* LLDB's crashlog (llvm/llvm-project, lldb/examples/python/crashlog.py,
  TextCrashLogParser.parse / parse_normal / parse_thread / parse_images /
  parse_thread_registers).

Neither is packaged by Debian, so their rules are restated here in our own
words; each check names the upstream function and rule it mirrors.  Where an
upstream parser only prints an error and goes on (crashlog's "frame regex
failed", "image regex failed"), this reading rejects the report; where it
silently leaves a section (Sentry, at the first thread or image line its
pattern does not match), the lines it loses show as a difference from the twin.

usage: apple_parsers.py CRASH JSON [CRASH JSON]...   (exit 0: all accepted and equal)
"""
import json
import re
import sys
import uuid


class Rejected(Exception):
    pass


# --- Sentry: src/parser.rs ------------------------------------------------------

# Rust's regex \s is Unicode whitespace, like Python's for str patterns.
S_KEY_VALUE = re.compile(r'^\s*(.*?)\s*:\s*(.*?)\s*$')                      # KEY_VALUE_RE
S_THREAD = re.compile(r'^Thread ([0-9]+)( Crashed)?:\s*(.+?)?\s*$')          # THREAD_RE
S_THREAD_NAME = re.compile(r'^Thread ([0-9]+) name:\s*(.+?)'                 # THREAD_NAME_RE
                           r'(?:\s+Dispatch queue:\s*(.*?))?\s*$')
S_THREAD_STATE = re.compile(r'^Thread ([0-9]+) crashed with .*? Thread State:\s*$')  # THREAD_STATE_RE
S_REGISTER = re.compile(r'\s*([a-z0-9]+):\s+(0x[0-9a-fA-F]+)\s*')            # REGISTER_RE
S_FRAME = re.compile(r'^[0-9]+\s+(.+?)\s+(0x[0-9a-fA-F]+)\s+(.*?)'           # FRAME_RE
                     r'(?: (?:\+ [0-9]+|\((.*?):([0-9]+)\)))?\s*$')
S_IMAGE = re.compile(r'^\s*(0x[0-9a-fA-F]+)\s*-\s*(0x[0-9a-fA-F]+)\s+'       # BINARY_IMAGE_RE
                     r'\+?(.+)\s+(\S+?)\s+(?:\(([^)]+?)\))?\s+<([^>]+?)>\s+(.*?)$')

U64 = 1 << 64
HEX = '0123456789abcdefABCDEF'


def s_u64_hex(text, what):
    """parse_prefixed_hex_u64: optional 0x, then u64::from_str_radix(16)."""
    digits = text[2:] if text.startswith('0x') else text
    if digits.startswith('+'):
        digits = digits[1:]
    if not digits or any(c not in HEX for c in digits) or int(digits, 16) >= U64:
        raise Rejected('sentry: invalid %s %r' % (what, text))
    return int(digits, 16)


def s_uint(text, bits, what):
    """Rust's u32/u64 FromStr: an optional '+', then ASCII digits, no overflow."""
    digits = text[1:] if text.startswith('+') else text
    if not digits or not all('0' <= c <= '9' for c in digits) or int(digits) >= 1 << bits:
        raise Rejected('sentry: invalid %s %r' % (what, text))
    return int(digits)


def s_uuid(text, what):
    """uuid::Uuid::from_str: 32 hex digits, 8-4-4-4-12 with dashes, either in braces or after urn:uuid:."""
    if text.startswith('urn:uuid:'):
        text = text[9:]
    elif text.startswith('{') and text.endswith('}'):
        text = text[1:-1]
    groups = text.split('-')
    if len(groups) == 1:
        ok = len(text) == 32
    else:
        ok = [len(g) for g in groups] == [8, 4, 4, 4, 12]
    if not ok or any(c not in HEX for c in ''.join(groups)):
        raise Rejected('sentry: invalid %s %r' % (what, text))
    return ''.join(groups).lower()


# chrono "%Y-%m-%d %H:%M:%S%.f %z"
S_DATE = re.compile(r'^([+-]?[0-9]{4,})-([0-9]{1,2})-([0-9]{1,2}) ([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})'
                    r'(?:\.[0-9]+)? [+-][0-9]{2}:?[0-9]{2}$')


def s_date(text):
    m = S_DATE.match(text)
    if not m:
        raise Rejected('sentry: invalid timestamp %r' % text)
    y, mo, d, h, mi, s = (int(g) for g in m.groups())
    if not (1 <= mo <= 12 and 1 <= d <= 31 and h < 24 and mi < 60 and s <= 60):
        raise Rejected('sentry: invalid timestamp %r' % text)


def sentry_parse(text):
    """AppleCrashReport::from_line_iter: threads (id, name, crashed, frames) and binary images."""
    state = 'root'
    thread = None
    threads, images, names = [], [], {}
    for line in text.split('\n'):
        line = line.rstrip('\r').rstrip()                    # str::lines, then trim_end
        if line.startswith('Binary Images:'):
            state = 'images'
            continue
        if line.startswith('Application Specific Information:'):
            state = 'asi'
            continue
        if line.startswith('Filtered syslog:'):
            state = 'syslog'
            continue
        if S_THREAD_STATE.match(line):
            state = 'thread_state'
            continue
        m = S_THREAD.match(line)
        if m:
            if thread:
                threads.append(thread)
            thread = {'id': s_uint(m.group(1), 64, 'thread identifier'), 'name': m.group(3),
                      'crashed': m.group(2) is not None, 'frames': []}
            state = 'thread'
            continue
        m = S_THREAD_NAME.match(line)
        if m:
            names[s_uint(m.group(1), 64, 'thread identifier')] = m.group(2)
            state = 'root'
            continue
        if state == 'root':
            m = S_KEY_VALUE.match(line)
            if m:
                key, value = m.group(1), m.group(2)
                if key == 'Incident Identifier':
                    s_uuid(value, 'incident identifier')
                elif key == 'Report Version':
                    s_uint(value, 32, 'report version')
                elif key == 'Date/Time':
                    s_date(value)
        elif state == 'thread_state':
            if not line:
                state = 'root'
            else:
                for r in S_REGISTER.finditer(line):
                    s_u64_hex(r.group(2), 'register address')
        elif state == 'thread':
            m = S_FRAME.match(line)
            if m:
                if thread is None:
                    raise Rejected('sentry: invalid thread parser state')
                if m.group(5) is not None:
                    s_uint(m.group(5), 32, 'frame line number')
                sym = m.group(3)
                if sym.startswith('0x'):
                    try:
                        s_u64_hex(sym, '')
                        sym = None
                    except Rejected:
                        pass
                thread['frames'].append({'module': None if m.group(1) == '???' else m.group(1),
                                         'symbol': sym,
                                         'address': s_u64_hex(m.group(2), 'frame instruction address')})
            else:
                state = 'root'
        elif state == 'images':
            if not line:
                continue
            m = S_IMAGE.match(line)
            if not m:
                # Upstream leaves the section here: images after it are lost (the comparison sees that).
                state = 'root'
                continue
            lo = s_u64_hex(m.group(1), 'binary image address')
            hi = s_u64_hex(m.group(2), 'binary image end address')
            if hi < lo:
                raise Rejected('sentry: invalid binary image address range')
            images.append({'start': lo, 'end': hi, 'uuid': s_uuid(m.group(6), 'binary image identifier'),
                           'arch': m.group(4), 'name': m.group(3), 'path': m.group(7)})
    if thread:
        threads.append(thread)
    for t in threads:
        if t['id'] in names:
            t['name'] = names.pop(t['id'])
    crashed = [i for i, t in enumerate(threads) if t['crashed']]
    return {'threads': threads, 'crashed': crashed[0] if crashed else None, 'images': images}


# --- LLDB: lldb/examples/python/crashlog.py, class TextCrashLogParser --------------------

L_PARENT = re.compile(r'^Parent Process:\s*(.*)\[(\d+)\]')
L_THREAD_STATE = re.compile(r'^Thread \d+ crashed with')
L_THREAD_INSTRS = re.compile(r'^Thread \d+ instruction stream')
L_THREAD = re.compile(r'^Thread (\d+).*:')
L_APP_BACKTRACE = re.compile(r'^Application Specific Backtrace (\d+).*:')
L_VERSION = r'\(.+\)|(?:arm|x86_)[0-9a-z]+'
L_FRAME = re.compile(r'^(\d+)\s+(.+?)\s+(?:' + L_VERSION + r'\s+)?(0x[0-9a-fA-F]{7,}) +(.*)')
L_NULL_FRAME = re.compile(r'^\d+\s+\?\?\?\s+0{7,} +')
L_IMAGE = re.compile(r'(0x[0-9a-fA-F]+)\s+-\s+(0x[0-9a-fA-F]+)\s+[+]?(.+?)\s+'
                     r'(?:(' + L_VERSION + r')\s+)?(?:<([-0-9a-fA-F]+)>\s+)?(/.*)')
L_IGNORED = ('Interval Since Last Report:', 'Crashes Since Last Report:', 'Per-App Interval Since Last Report:',
             'Per-App Crashes Since Last Report:', 'Sleep/Wake UUID:', 'Anonymous UUID:')


def lldb_parse(text):
    """TextCrashLogParser.parse: threads (index, frames), the crashed thread, images."""
    st = {'mode': 'normal', 'thread': None, 'app_specific': False, 'crashed_idx': -1}
    threads, backtraces, images = [], [], []

    def as_int(s, what):
        try:
            return int(s)
        except ValueError:
            raise Rejected('lldb: %s %r is not a number' % (what, s))

    def normal(line):                                              # parse_normal
        if line.startswith('Process:'):
            parts = line[8:].strip().split(' [')
            if len(parts) != 2:                                    # tuple unpacking raises
                raise Rejected('lldb: Process line %r' % line)
        elif line.startswith('Crashed Thread:') or line.startswith('Triggered by Thread:'):
            words = line.split(':', 1)[1].strip().split()
            if not words:
                raise Rejected('lldb: %r has no thread number' % line)
            st['crashed_idx'] = as_int(words[0], 'crashed thread')
        elif line.startswith('Report Version:'):
            as_int(line[15:].strip(), 'report version')
        elif line.startswith('System Profile:'):
            st['mode'] = 'system'
        elif line.startswith(L_IGNORED):
            pass
        elif line.startswith('Thread'):
            if L_THREAD_STATE.search(line):
                idx = int(L_THREAD.search(line).group(1))
                if idx >= len(threads):                            # self.crashlog.threads[idx]
                    raise Rejected('lldb: thread state of thread %d, which was not listed' % idx)
                st['mode'] = 'registers'
                st['thread'] = threads[idx]
            elif L_THREAD_INSTRS.search(line):
                st['mode'] = 'instructions'
            else:
                m = L_THREAD.search(line)
                if m:
                    st['app_specific'] = False
                    st['mode'] = 'thread'
                    st['thread'] = {'index': int(m.group(1)), 'frames': [], 'crashed': False}
        elif line.startswith('Binary Images:'):
            st['mode'] = 'images'
        elif line.startswith('Application Specific Backtrace'):
            m = L_APP_BACKTRACE.search(line)
            if m:
                st['mode'] = 'thread'
                st['app_specific'] = True
                st['thread'] = {'index': int(m.group(1)), 'frames': [], 'crashed': False}
        elif line.startswith('Last Exception Backtrace:'):
            st['mode'] = 'thread'
            st['app_specific'] = True
            st['thread'] = {'index': 1, 'frames': [], 'crashed': False}

    def thread(line):                                              # parse_thread
        if line.startswith('Thread') or L_NULL_FRAME.search(line):
            return
        m = L_FRAME.search(line)
        if not m:
            raise Rejected('lldb: frame regex failed for line %r' % line)
        st['thread']['frames'].append({'module': m.group(2), 'address': int(m.group(3), 0)})

    def image(line):                                               # parse_images
        m = L_IMAGE.search(line)
        if not m:
            raise Rejected('lldb: image regex failed for %r' % line)
        if m.group(5) is None:
            raise Rejected('lldb: image without a UUID: %r' % line)   # uuid.UUID(None) raises
        try:
            u = uuid.UUID(m.group(5))
        except ValueError as e:
            raise Rejected('lldb: %s: %r' % (e, line))
        images.append({'start': int(m.group(1), 0), 'end': int(m.group(2), 0), 'uuid': u.hex,
                       'name': m.group(3).strip(), 'path': m.group(6)})

    def registers(line):                                           # parse_thread_registers
        for _, value in re.findall('([a-z0-9]+): (0x[0-9a-f]+)', line, re.I):
            int(value, 16)

    parsers = {'normal': normal, 'thread': thread, 'images': image, 'registers': registers,
               'system': lambda line: None, 'instructions': lambda line: None}
    for line in text.splitlines():
        if not line:
            t = st['thread']
            if t and st['mode'] == 'thread':
                t['crashed'] = t['index'] == st['crashed_idx']
                (backtraces if st['app_specific'] else threads).append(t)
            st['thread'] = None
            st['mode'] = 'normal'
        else:
            parsers[st['mode']](line)
    crashed = [t['index'] for t in threads if t['crashed']]
    return {'threads': threads, 'crashed': crashed[0] if crashed else None, 'images': images}


# --- the JSON twin, read with Python's json --------------------------------------------

def text_escaped(s):
    """A name as the .crash writes it (formats/text/text_escape.c): bytes below 0x20, DEL and a
    backslash that "x" follows as \\xHH; what the Apple parsers read is that."""
    if s is None:
        return None
    out = []
    for i, c in enumerate(s):
        if ord(c) < 0x20 or ord(c) == 0x7f or (c == '\\' and s[i + 1:i + 2] == 'x'):
            out.append('\\x%02x' % ord(c))
        else:
            out.append(c)
    return ''.join(out)


def twin_facts(doc):
    images = doc.get('images') or []
    threads = []
    for i, t in enumerate(doc.get('threads') or []):
        frames = []
        for f in t.get('frames') or []:
            ix = f.get('image')
            name = images[ix].get('name') if ix is not None and ix < len(images) else f.get('image_name')
            frames.append({'address': f['address'], 'module': text_escaped(name)})
        # A thread with a queue but no name reads, in Apple's layout and so for Sentry too,
        # as one named "Dispatch queue: q".
        name = text_escaped(t.get('name') or ('Dispatch queue: ' + t['queue'] if t.get('queue') else None))
        threads.append({'index': i, 'id': t.get('id'), 'name': name, 'frames': frames,
                        'crashed': bool(t.get('crashed'))})
    crashed = [t['index'] for t in threads if t['crashed']]
    trig = (doc.get('exception') or {}).get('triggered_thread')
    out = []
    for im in images:
        path = im.get('path') or '???'
        out.append({'start': im['start'], 'end': (im['start'] + im['size'] - 1) % U64,
                    'uuid': (im.get('debug_id') or '0' * 32).replace('-', ''),
                    'name': text_escaped(im.get('name') or '???'), 'arch': im.get('arch') or 'unknown-arch',
                    'path': text_escaped(path if path.startswith('/') else '/' + path)})
    return {'threads': threads, 'crashed': crashed[0] if crashed else None, 'images': out,
            'triggered': trig if trig is not None and 0 <= trig < len(threads) else None}


def compare(tool, got, want, errors):
    def bad(msg):
        errors.append('%s: %s' % (tool, msg))
    if len(got['threads']) != len(want['threads']):
        bad('%d threads, the twin has %d' % (len(got['threads']), len(want['threads'])))
    for g, w in zip(got['threads'], want['threads']):
        tag = 'thread %d' % w['index']
        if g.get('id', g.get('index')) != w['index']:
            bad('%s is numbered %r' % (tag, g.get('id', g.get('index'))))
        if 'name' in g and g['name'] != w['name']:
            bad('%s is named %r, the twin says %r' % (tag, g['name'], w['name']))
        ga = [f['address'] for f in g['frames']]
        wa = [f['address'] for f in w['frames']]
        if ga != wa:
            bad('%s frames %s, the twin %s' % (tag, [hex(a) for a in ga], [hex(a) for a in wa]))
        gm = [f['module'] or '???' for f in g['frames']]
        wm = [f['module'] or '???' for f in w['frames']]
        if ga == wa and gm != wm:
            bad('%s frame images %s, the twin %s' % (tag, gm, wm))
    # Sentry takes the crashed thread from "Thread N Crashed:", crashlog from "Triggered by Thread:".
    key = 'crashed' if tool.startswith('sentry') else 'triggered'
    if got['crashed'] != want[key]:
        bad('crashed thread %r, the twin says %r' % (got['crashed'], want[key]))
    if len(got['images']) != len(want['images']):
        bad('%d images, the twin has %d' % (len(got['images']), len(want['images'])))
    for g, w in zip(got['images'], want['images']):
        for k in ('start', 'end', 'uuid', 'name', 'path'):
            # crashlog's lazy name takes the arch along when a version follows it.
            if g[k] != w[k] and not (k == 'name' and g[k] == w['name'] + ' ' + w['arch']):
                bad('image %s: %s %r, the twin %r' % (w['name'], k, g[k], w[k]))


def check(crash_path, json_path):
    with open(crash_path, encoding='utf-8', errors='surrogateescape') as f:
        text = f.read()
    with open(json_path, encoding='utf-8') as f:
        want = twin_facts(json.load(f))
    errors = []
    for tool, parse in (('sentry apple-crash-report-parser', sentry_parse), ('lldb crashlog', lldb_parse)):
        try:
            got = parse(text)
        except Rejected as e:
            errors.append('%s rejects it: %s' % (tool, e))
            continue
        compare(tool, got, want, errors)
    return errors, want


def main(argv):
    if len(argv) < 2 or len(argv) % 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    failed = 0
    for crash_path, json_path in zip(argv[0::2], argv[1::2]):
        errors, want = check(crash_path, json_path)
        frames = sum(len(t['frames']) for t in want['threads'])
        if errors:
            failed += 1
            print('FAIL %s' % crash_path)
            for e in errors:
                print('  ' + e)
        else:
            print('ok   %s: %d threads, %d frames, %d images, crashed thread %s'
                  % (crash_path, len(want['threads']), frames, len(want['images']), want['crashed']))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
