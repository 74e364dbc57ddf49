// The REST benches' common start: a glovebox serving /v1, and the terminal
// they call.

/** Waits until the server at base answers on /v1, then starts a shared
 * terminal running cat over POST /v1/sessions; returns its id. why() says
 * what went wrong (the server's stderr) when it does not come up. */
export async function restTerminal(base, why = () => '') {
  for (let i = 0; ; i++) {
    try {
      await fetch(`${base}/v1/sessions`);
      break;
    } catch {
      if (i > 200) throw new Error(`glovebox did not start: ${why()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  const started = await fetch(`${base}/v1/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ kind: 'terminal', arguments: { command: ['cat'] }, shared: true, idle_s: 3600 }),
  });
  const body = await started.json();
  if (started.status !== 201) throw new Error(`could not start a session: ${started.status} ${JSON.stringify(body)} ${why()}`);
  return body.id;
}
