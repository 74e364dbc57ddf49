// A small sh for the fake device: parses a command line the way the device's
// /system/bin/sh (mksh) would — quotes, backslashes, $VAR, $(…) and `…`,
// ; && || | and redirections — and runs each simple command through the
// device's fixed command table. Nothing here ever runs on the host. Expansions
// are carried out (as a real device would) and recorded, so a test can prove
// that a client's escaping kept text literal.

export class ShellSyntaxError extends Error {}

const OPS = ['&&', '||', ';;', '>>', '>&', '<&', ';', '&', '|', '<', '>', '(', ')', '\n'];

/** Splits a script into tokens: {op} or {word: parts[]}; parts are lit/sub/var. */
export function tokenize(src) {
  const toks = [];
  let i = 0;
  let parts = null; // parts of the word being read, or null between words
  let lit = '';
  let quotedAny = false;
  const pushLit = (s, quoted) => {
    parts ??= [];
    const last = parts[parts.length - 1];
    if (last && last.type === 'lit' && last.quoted === quoted) last.s += s;
    else parts.push({ type: 'lit', s, quoted });
  };
  const endWord = () => {
    if (parts) toks.push({ word: parts, quoted: quotedAny });
    parts = null;
    quotedAny = false;
  };
  const readSub = (start) => { // src[start] is just after "$(": find the matching ")"
    let depth = 1;
    let j = start;
    while (j < src.length) {
      const c = src[j];
      if (c === '\\') { j += 2; continue; }
      if (c === "'") { const k = src.indexOf("'", j + 1); if (k < 0) break; j = k + 1; continue; }
      if (c === '"') {
        j++;
        while (j < src.length && src[j] !== '"') j += src[j] === '\\' ? 2 : 1;
        j++;
        continue;
      }
      if (c === '(') depth++;
      if (c === ')' && --depth === 0) return j;
      j++;
    }
    throw new ShellSyntaxError("')' missing");
  };
  const readDollar = (quoted) => { // src[i] === '$'
    const n = src[i + 1];
    if (n === '(') {
      const end = readSub(i + 2);
      (parts ??= []).push({ type: 'sub', cmd: src.slice(i + 2, end), quoted, raw: src.slice(i, end + 1) });
      i = end + 1;
      return;
    }
    if (n === '{') {
      const end = src.indexOf('}', i + 2);
      if (end < 0) throw new ShellSyntaxError("'}' missing");
      (parts ??= []).push({ type: 'var', name: src.slice(i + 2, end), quoted, raw: src.slice(i, end + 1) });
      i = end + 1;
      return;
    }
    const m = /^([A-Za-z_][A-Za-z0-9_]*|[0-9?$#@*!-])/.exec(src.slice(i + 1));
    if (!m) { pushLit('$', quoted); i++; return; }
    (parts ??= []).push({ type: 'var', name: m[1], quoted, raw: '$' + m[1] });
    i += 1 + m[1].length;
  };
  const readBacktick = (quoted) => {
    let j = i + 1;
    let cmd = '';
    while (j < src.length && src[j] !== '`') {
      if (src[j] === '\\' && j + 1 < src.length && '$`\\'.includes(src[j + 1])) { cmd += src[j + 1]; j += 2; continue; }
      cmd += src[j++];
    }
    if (j >= src.length) throw new ShellSyntaxError('no closing quote');
    (parts ??= []).push({ type: 'sub', cmd, quoted, raw: src.slice(i, j + 1) });
    i = j + 1;
  };
  while (i < src.length) {
    const c = src[i];
    if (c === ' ' || c === '\t') { endWord(); i++; continue; }
    if (c === '#' && !parts) { while (i < src.length && src[i] !== '\n') i++; continue; }
    if (c === '\\') {
      if (src[i + 1] === '\n') { i += 2; continue; } // line continuation
      if (i + 1 >= src.length) { pushLit('\\', false); i++; continue; }
      pushLit(src[i + 1], true);
      quotedAny = true;
      i += 2;
      continue;
    }
    if (c === "'") {
      const end = src.indexOf("'", i + 1);
      if (end < 0) throw new ShellSyntaxError('no closing quote');
      pushLit(src.slice(i + 1, end), true);
      quotedAny = true;
      i = end + 1;
      continue;
    }
    if (c === '"') {
      quotedAny = true;
      pushLit('', true);
      i++;
      for (;;) {
        if (i >= src.length) throw new ShellSyntaxError('no closing quote');
        const d = src[i];
        if (d === '"') { i++; break; }
        if (d === '\\' && i + 1 < src.length && '$`"\\\n'.includes(src[i + 1])) {
          if (src[i + 1] !== '\n') pushLit(src[i + 1], true);
          i += 2;
        } else if (d === '$') readDollar(true);
        else if (d === '`') readBacktick(true);
        else { pushLit(d, true); i++; }
      }
      continue;
    }
    if (c === '$') { readDollar(false); continue; }
    if (c === '`') { readBacktick(false); continue; }
    const op = OPS.find((o) => src.startsWith(o, i));
    if (op) {
      // "2>" and "2>&1": a word of digits right before a redirection is its fd.
      if ((op[0] === '>' || op[0] === '<') && parts && !quotedAny && parts.length === 1 &&
          parts[0].type === 'lit' && /^[0-9]$/.test(parts[0].s)) {
        const fd = Number(parts[0].s);
        parts = null;
        toks.push({ op, fd });
      } else {
        endWord();
        toks.push({ op });
      }
      i += op.length;
      continue;
    }
    pushLit(c, false);
    i++;
  }
  endWord();
  return toks;
}

/** Groups tokens into a list of and-or chains of pipelines of simple commands. */
export function parse(src) {
  const toks = tokenize(src);
  const list = []; // [{chain: [{pipeline, op}]}]
  let chain = [];
  let pipeline = [];
  let cmd = { words: [], redirs: [] };
  const endCmd = () => {
    if (!cmd.words.length && !cmd.redirs.length) return false;
    pipeline.push(cmd);
    cmd = { words: [], redirs: [] };
    return true;
  };
  for (let t = 0; t < toks.length; t++) {
    const tok = toks[t];
    if (tok.word) { cmd.words.push(tok.word); continue; }
    const { op } = tok;
    if (['>', '>>', '<', '>&', '<&'].includes(op)) {
      const target = toks[++t];
      if (!target?.word) throw new ShellSyntaxError(`syntax error: '${op}' unexpected`);
      cmd.redirs.push({ op, fd: tok.fd ?? (op[0] === '<' ? 0 : 1), target: target.word });
      continue;
    }
    if (op === '|') {
      if (!endCmd()) throw new ShellSyntaxError("syntax error: '|' unexpected");
      continue;
    }
    if (op === '&&' || op === '||') {
      if (!endCmd()) throw new ShellSyntaxError(`syntax error: '${op}' unexpected`);
      chain.push({ pipeline, op });
      pipeline = [];
      continue;
    }
    if (op === ';' || op === '&' || op === '\n') {
      const had = endCmd();
      if (!had && !pipeline.length && chain.length) throw new ShellSyntaxError(`syntax error: '${op}' unexpected`);
      if (pipeline.length) chain.push({ pipeline, op: null });
      if (chain.length) list.push(chain);
      chain = [];
      pipeline = [];
      continue;
    }
    throw new ShellSyntaxError(`syntax error: '${op}' unexpected`);
  }
  endCmd();
  if (pipeline.length) chain.push({ pipeline, op: null });
  else if (chain.length) throw new ShellSyntaxError('syntax error: unexpected end of input');
  if (chain.length) list.push(chain);
  return list;
}

class Exit extends Error {
  constructor(code) { super('exit'); this.code = code; }
}

/**
 * Runs a script. io = {out(buf), err(buf), stdin: Buffer}; exec(argv, io) runs
 * one simple command and returns its exit status; expansions[] collects every
 * $(…), `…` and $VAR the script expanded (proof for tests). Returns the status.
 */
export async function runScript(src, io, exec, env, expansions) {
  // $? carries over between the lines of one sh (env.__status), as in a script.
  let status = env.__status ?? 0;
  const expand = async (parts) => {
    const fields = [];
    let cur = null; // the field being built; null until something (even "") starts it
    for (const p of parts) {
      if (p.type === 'lit') { cur = (cur ?? '') + p.s; continue; }
      expansions.push(p.raw);
      let val;
      if (p.type === 'var') val = p.name === '?' ? String(status) : env[p.name] ?? '';
      else {
        const chunks = [];
        await runScript(p.cmd, { out: (b) => chunks.push(Buffer.from(b)), err: io.err, stdin: Buffer.alloc(0) },
          exec, env, expansions);
        val = Buffer.concat(chunks).toString('utf8').replace(/\n+$/, '');
      }
      if (p.quoted) { cur = (cur ?? '') + val; continue; }
      // Unquoted: field splitting on blanks, as sh does.
      val.split(/[ \t\n]+/).forEach((piece, k) => {
        if (k > 0 && cur !== null) { fields.push(cur); cur = null; }
        if (piece !== '') cur = (cur ?? '') + piece;
      });
    }
    if (cur !== null) fields.push(cur);
    return fields;
  };
  const runCommand = async (cmd, cio) => {
    const argv = [];
    const assigns = {};
    let k = 0;
    // Leading NAME=value words are assignments, not the command (sh: "c=1" alone sets c).
    for (; k < cmd.words.length; k++) {
      const w = cmd.words[k];
      const m = w[0]?.type === 'lit' && !w[0].quoted ? /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(w[0].s) : null;
      if (!m) break;
      const value = await expand([{ ...w[0], s: w[0].s.slice(m[0].length) }, ...w.slice(1)]);
      assigns[m[1]] = value.join(' ');
    }
    for (const w of cmd.words.slice(k)) argv.push(...(await expand(w)));
    if (!argv.length) Object.assign(env, assigns);
    let out = cio.out;
    let err = cio.err;
    let stdin = cio.stdin;
    let stdinFeed;
    const files = [];
    for (const r of cmd.redirs) {
      const [target] = await expand(r.target);
      if (r.op === '>&') {
        const to = target === '1' ? out : target === '2' ? err : null;
        if (r.fd === 2 && to) err = to;
        else if (r.fd === 1 && to) out = to;
        continue;
      }
      if (r.op === '<') {
        const data = target === '/dev/null' ? Buffer.alloc(0) : env.__fs.read(target);
        if (data === null) {
          cio.err(Buffer.from(`/system/bin/sh: can't open ${target}: No such file or directory\n`));
          return 1;
        }
        stdin = data;
        continue;
      }
      if (target === '/dev/null') { const drop = () => {}; if (r.fd === 2) err = drop; else out = drop; continue; }
      if (target === '/dev/tty' || target === '/dev/stdout') continue;
      if (target.startsWith('/dev/input/') && r.fd === 1 && env.__dev) {
        // An input node: written as it comes (the touch panel decodes events).
        const node = env.__dev.openInputNode(target);
        if (node.error) { cio.err(Buffer.from(`/system/bin/sh: can't create ${target}: ${node.error}\n`)); return 1; }
        out = node.write;
        stdinFeed = cio.stdinFeed;
        continue;
      }
      const chunks = [];
      files.push({ path: target, chunks, append: r.op === '>>' });
      const sink = (b) => chunks.push(Buffer.from(b));
      if (r.fd === 2) err = sink; else out = sink;
    }
    if (!argv.length) return 0;
    if (argv[0] === 'exit') throw new Exit(argv[1] === undefined ? status : Number(argv[1]) & 0xff);
    const code = await exec(argv, { out, err, stdin, signal: cio.signal, stdinFeed });
    for (const f of files) env.__fs.write(f.path, Buffer.concat(f.chunks), f.append);
    return code;
  };
  const runPipeline = async (pipeline) => {
    let stdin = io.stdin;
    let code = 0;
    for (let k = 0; k < pipeline.length; k++) {
      const last = k === pipeline.length - 1;
      const chunks = [];
      code = await runCommand(pipeline[k], { out: last ? io.out : (b) => chunks.push(Buffer.from(b)), err: io.err, stdin, signal: io.signal, stdinFeed: k === 0 ? io.stdinFeed : undefined });
      stdin = Buffer.concat(chunks);
    }
    return code;
  };
  let list;
  try {
    list = parse(src);
  } catch (e) {
    if (!(e instanceof ShellSyntaxError)) throw e;
    io.err(Buffer.from(`/system/bin/sh: ${e.message}\n`));
    return 1;
  }
  try {
    for (const chain of list) {
      let skip = false;
      let prevOp = null;
      for (const { pipeline, op } of chain) {
        if (!skip) status = await runPipeline(pipeline);
        // a && b: b runs when a succeeded; a || b: when it failed; a skipped link passes its status on.
        prevOp = op;
        if (prevOp === '&&') skip = status !== 0;
        else if (prevOp === '||') skip = status === 0;
      }
    }
  } catch (e) {
    if (!(e instanceof Exit)) throw e;
    io.exited?.();
    status = e.code;
  }
  env.__status = status;
  return status;
}
