// List pagination: with `serve --page-size 2` a client following nextCursor
// sees every tool exactly once, in the same order as an unpaginated list.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { RawServer, assertMcpError, connectClient, modernParams, opts } from '../lib/server.mjs';

async function allToolNames(client) {
  const names = [];
  const cursors = [];
  let cursor;
  for (let page = 0; page < 100; page++) {
    const r = await client.listTools(cursor === undefined ? {} : { cursor });
    names.push(...r.tools.map((x) => x.name));
    if (r.nextCursor === undefined) return { names, cursors, pages: page + 1, lastSize: r.tools.length };
    assert.ok(r.tools.length > 0, 'a page with a next cursor is not empty');
    assert.equal(typeof r.nextCursor, 'string');
    cursors.push(r.nextCursor);
    cursor = r.nextCursor;
  }
  assert.fail('more than 100 pages: nextCursor never ends');
}

describe('tools/list pagination', () => {
  test('following nextCursor with --page-size 2 yields every tool once, in unpaginated order', opts(), async (t) => {
    const full = await connectClient(t);
    const unpaginated = await full.client.listTools();
    assert.equal(unpaginated.nextCursor, undefined, 'the default page holds every tool');
    await full.close();

    const srv = await connectClient(t, { args: ['--page-size', '2'] });
    const { names, cursors, pages } = await allToolNames(srv.client);
    assert.deepEqual(names, unpaginated.tools.map((x) => x.name));
    assert.equal(new Set(names).size, names.length, 'no tool twice');
    assert.equal(pages, Math.ceil(names.length / 2));
    assert.equal(new Set(cursors).size, cursors.length, 'cursors differ page to page');
    // Walking again gives the same pages.
    assert.deepEqual((await allToolNames(srv.client)).names, names);
    await srv.close();
  });

  test('an invalid cursor is invalid params (-32602)', opts(), async (t) => {
    const srv = await connectClient(t, { args: ['--page-size', '2'] });
    for (const cursor of ['bogus', 't999999', 't0', 't-1', 'r2', '']) {
      const err = await assertMcpError(srv.client.listTools({ cursor }), -32602);
      assert.match(err.message, /cursor/);
    }
    await srv.client.ping();
    await srv.close();
  });

  test('stateless (2026-07-28) tools/list pages the same way', opts(), async (t) => {
    const s = RawServer.start(t, { args: ['--page-size', '3'] });
    const names = [];
    let cursor;
    for (let id = 1; id < 50; id++) {
      const r = await s.request(id, 'tools/list', modernParams(cursor ? { cursor } : {}));
      assert.equal(r.result.resultType, 'complete');
      assert.ok(r.result.tools.length <= 3);
      names.push(...r.result.tools.map((x) => x.name));
      cursor = r.result.nextCursor;
      if (!cursor) break;
    }
    assert.ok(names.includes('status') && names.includes('fixture_types'));
    assert.equal(new Set(names).size, names.length);
    const bad = await s.request(99, 'tools/list', modernParams({ cursor: 'nope' }));
    assert.equal(bad.error?.code, -32602);
    await s.close();
  });
});
