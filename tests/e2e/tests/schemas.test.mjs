// Tool schemas are JSON files in the source tree (<tool>.schema.json beside
// each tool, shared parts in *.defs.json), embedded at build time by
// scripts/schema_embed.py. Every file must be a valid JSON Schema (draft
// 2020-12, checked with ajv), its "$ref"s to other files must resolve as
// JSON Schema defines them, and tools/list of the real server must show
// exactly these schemas, with the shared parts put in place (input schemas
// without the limits the server checks but does not list, src/mcp/registry.c).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, test } from 'node:test';

import { E2E_DIR, REPO_DIR, builtKinds, connectClient, opts } from '../lib/server.mjs';

// ajv 8 (with the 2020-12 dialect) comes with the MCP SDK.
const require = createRequire(join(E2E_DIR, 'node_modules/@modelcontextprotocol/sdk/package.json'));
const Ajv2020 = require('ajv/dist/2020').default;

function walk(dir, out = []) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.name.endsWith('.schema.json') || e.name.endsWith('.defs.json')) out.push(p);
  }
  return out;
}

const files = walk(join(REPO_DIR, 'src')).sort();
const toolFiles = files.filter((f) => f.endsWith('.schema.json'));
const defsFiles = files.filter((f) => f.endsWith('.defs.json'));
const load = (f) => JSON.parse(readFileSync(f, 'utf8'));
const toolName = (f) => basename(f).split('.')[0];
const rel = (f) => relative(REPO_DIR, f);

function ajvWithDefs() {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  // Each fragment under its file URL, so "pointer.defs.json#/$defs/x" in a
  // tool's file resolves as any JSON Schema tool would resolve it.
  for (const f of defsFiles) ajv.addSchema(load(f), pathToFileURL(f).href);
  return ajv;
}

// The schema as the server serves it: refs to other files replaced by what
// they point at plus the keywords beside the ref (scripts/schema_embed.py).
function inline(node, file, inFragment = false) {
  if (Array.isArray(node)) return node.map((v) => inline(v, file, inFragment));
  if (node === null || typeof node !== 'object') return node;
  const ref = node.$ref;
  if (typeof ref === 'string' && (inFragment || !ref.startsWith('#'))) {
    const [filePart, ptr = ''] = ref.split('#');
    const target = filePart ? resolve(dirname(file), filePart) : file;
    let v = load(target);
    for (const part of ptr.split('/').filter(Boolean)) v = v[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    assert.ok(v && typeof v === 'object', `${rel(file)}: "$ref": "${ref}" points at nothing`);
    const out = { ...inline(v, target, true) };
    for (const [k, x] of Object.entries(node)) if (k !== '$ref') out[k] = inline(x, file, inFragment);
    return out;
  }
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, inline(v, file, inFragment)]));
}

describe('tool schemas as JSON files', () => {
  test('the source tree has tool schema files and shared fragments', () => {
    assert.ok(toolFiles.length >= 20, `found only ${toolFiles.map(rel)}`);
    assert.ok(defsFiles.length >= 1, 'no *.defs.json fragments found');
  });

  test('every fragment file is a valid draft 2020-12 JSON Schema', () => {
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    for (const f of defsFiles) {
      const doc = load(f);
      assert.ok(ajv.validateSchema(doc), `${rel(f)}: ${ajv.errorsText(ajv.errors)}`);
      assert.equal(typeof doc.$defs, 'object', `${rel(f)}: a fragment file keeps its parts in "$defs"`);
    }
  });

  test('every tool schema file is valid draft 2020-12 JSON Schema, its refs resolving', () => {
    const ajv = ajvWithDefs();
    for (const f of toolFiles) {
      const doc = load(f);
      assert.deepEqual(
        Object.keys(doc).filter((k) => k !== 'input' && k !== 'output'),
        [],
        `${rel(f)}: only "input" and "output"`,
      );
      assert.equal(doc.input?.type, 'object', `${rel(f)}: the input schema is an object schema`);
      assert.equal(doc.input.additionalProperties, false, `${rel(f)}: input has "additionalProperties": false`);
      for (const which of ['input', 'output']) {
        if (!(which in doc)) continue;
        const where = `${rel(f)} (${which})`;
        assert.ok(ajv.validateSchema(doc[which]), `${where}: ${ajv.errorsText(ajv.errors)}`);
        // Compiled under the file's own URL: relative refs resolve against it.
        const schema = { $id: `${pathToFileURL(f).href}?${which}`, ...doc[which] };
        assert.doesNotThrow(() => ajv.compile(schema), where);
        const served = inline(doc[which], f);
        assert.doesNotThrow(() => new Ajv2020({ strict: true }).compile(served), `${where}, inlined`);
      }
    }
  });

  // The server lets every output schema admit {error: {code, message}} for
  // failed calls (src/mcp/registry.c, docs/errors.md): take that back out to
  // compare with the file.
  function withoutErrorAdmission(schema) {
    if (schema === undefined) return undefined;
    const s = structuredClone(schema);
    assert.equal(s.properties?.error?.properties?.code?.type, 'string', 'the error fragment is admitted');
    delete s.properties.error;
    const isAdmission = (a) =>
      Array.isArray(a) && a.length === 2 && a[1].required?.length === 1 && a[1].required[0] === 'error';
    if (isAdmission(s.anyOf)) {
      if (a0(s.anyOf).length) s.required = a0(s.anyOf);
      delete s.anyOf;
    } else if (Array.isArray(s.allOf)) {
      const i = s.allOf.findIndex((x) => isAdmission(x.anyOf));
      if (i >= 0) {
        if (a0(s.allOf[i].anyOf).length) s.required = a0(s.allOf[i].anyOf);
        s.allOf.splice(i, 1);
        if (s.allOf.length === 0) delete s.allOf;
      }
    }
    return s;
  }
  const a0 = (anyOf) => anyOf[0].required ?? [];

  // tools/list leaves out keywords that only bound values; a property of
  // that name stays (its value is a schema, an object).
  const LIMITS = new Set(['minLength', 'maxLength', 'pattern', 'minItems', 'maxItems', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum']);
  function withoutLimits(node) {
    if (Array.isArray(node)) return node.map(withoutLimits);
    if (node === null || typeof node !== 'object') return node;
    return Object.fromEntries(
      Object.entries(node)
        .filter(([k, v]) => !(LIMITS.has(k) && (v === null || typeof v !== 'object')))
        .map(([k, v]) => [k, withoutLimits(v)]),
    );
  }

  test('tools/list shows exactly the schemas of these files', opts(), async (t) => {
    const srv = await connectClient(t, { bin: 'glovebox' });
    try {
      const { tools } = await srv.client.listTools();
      const listed = new Map(tools.map((tool) => [tool.name, tool]));
      // The tools of a kind this build was configured without are not served.
      const kindOf = (f) => /^src\/backend\/([^/]+)\//.exec(rel(f))?.[1];
      const built = toolFiles.filter((f) => !kindOf(f) || builtKinds().has(kindOf(f)));
      const byFile = new Map(built.map((f) => [toolName(f), f]));
      assert.deepEqual([...listed.keys()].sort(), [...byFile.keys()].sort(), 'one schema file per tool, no more');
      for (const [name, f] of byFile) {
        const doc = load(f);
        const tool = listed.get(name);
        assert.deepEqual(tool.inputSchema, withoutLimits(inline(doc.input, f)), `${name}: inputSchema differs from ${rel(f)}`);
        assert.deepEqual(
          withoutErrorAdmission(tool.outputSchema),
          doc.output === undefined ? undefined : inline(doc.output, f),
          `${name}: outputSchema differs from ${rel(f)}`,
        );
      }
    } finally {
      await srv.close();
    }
  });

  test('the embedding step refuses a ref that points at nothing, naming the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'glovebox-schema-'));
    try {
      writeFileSync(join(dir, 'x.defs.json'), JSON.stringify({ $defs: { a: { type: 'string' } } }));
      const src = join(dir, 'x.schema.json');
      const input = (props) => JSON.stringify({ input: { type: 'object', properties: props } });
      writeFileSync(src, input({ b: { $ref: 'x.defs.json#/$defs/b' } }));
      const out = ['x.c', 'x.h', 'x.d'].map((n) => join(dir, n));
      const r = spawnSync('python3', [join(REPO_DIR, 'scripts/schema_embed.py'), src, ...out], { encoding: 'utf8' });
      assert.notEqual(r.status, 0, 'a dangling ref fails the build');
      assert.match(r.stderr, /x\.schema\.json/);
      assert.match(r.stderr, /nothing at "#\/\$defs\/b"/);

      writeFileSync(src, input({ a: { $ref: 'x.defs.json#/$defs/a', description: 'A' } }));
      const ok = spawnSync('python3', [join(REPO_DIR, 'scripts/schema_embed.py'), src, ...out], { encoding: 'utf8' });
      assert.equal(ok.status, 0, ok.stderr);
      const bytes = [...readFileSync(out[0], 'utf8').matchAll(/0x([0-9a-f]{2})/g)].map((m) => parseInt(m[1], 16));
      assert.equal(bytes.at(-1), 0, 'the text ends with a NUL');
      assert.deepEqual(JSON.parse(Buffer.from(bytes.slice(0, -1)).toString()), {
        type: 'object',
        properties: { a: { type: 'string', description: 'A' } },
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
