// The Vigil dashboard: Preact components written with htm (tagged templates,
// no build step). Everything it shows comes from /dashboard/api on the same
// origin; the session is an HttpOnly cookie the script never sees, and every
// changing request carries the session's CSRF token in a header.
import { h, render } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import htm from 'htm';

const html = htm.bind(h);

// ---- talking to the daemon ---------------------------------------------------

let csrfToken = '';
let onSignedOut = () => {};

class ApiFailure extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

async function api(method, path, body) {
  const headers = {};
  if (method !== 'GET') headers['X-CSRF-Token'] = csrfToken;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(path, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  const data = text ? JSON.parse(text) : null;
  if (!res.ok) {
    if (res.status === 401 && path !== '/dashboard/api/session') onSignedOut();
    throw new ApiFailure(res.status, data?.error?.code ?? 'error', data?.error?.message ?? `HTTP ${res.status}`);
  }
  return data;
}

/** Calls load now and every intervalMs; returns [data, error, reload]. */
function usePolled(load, intervalMs) {
  const [state, setState] = useState({ data: null, error: null });
  const asked = useRef(0);
  const reload = useCallback(async () => {
    const ask = ++asked.current; // an older answer arriving late must not undo a newer one
    try {
      const data = await load();
      if (ask === asked.current) setState({ data, error: null });
    } catch (err) {
      if (ask === asked.current) setState((s) => ({ data: s.data, error: err.message }));
    }
  }, [load]);
  useEffect(() => {
    reload();
    const timer = setInterval(reload, intervalMs);
    return () => clearInterval(timer);
  }, [reload, intervalMs]);
  return [state.data, state.error, reload];
}

// ---- formatting ---------------------------------------------------------------

function bytes(n) {
  if (n == null) return '–';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return `${n >= 100 || i === 0 ? Math.round(n) : n.toFixed(1)} ${units[i]}`;
}

function since(seconds) {
  const d = Math.floor(seconds / 86400);
  const hh = Math.floor((seconds % 86400) / 3600);
  const mm = Math.floor((seconds % 3600) / 60);
  if (d) return `${d} d ${hh} h`;
  if (hh) return `${hh} h ${mm} min`;
  return `${mm} min ${seconds % 60} s`;
}

/** Date and time, always both: a list read the next morning must not pass yesterday off as today. */
function when(iso) {
  if (!iso) return '–';
  const t = new Date(iso);
  const year = t.getFullYear() === new Date().getFullYear() ? {} : { year: 'numeric' };
  return t.toLocaleString(undefined, { ...year, month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
}

/** "1 clip", "2 clips" */
const count = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

const isFinal = (r) => ['done', 'error'].includes(r.status.classify) && ['done', 'error', 'expired'].includes(r.status.video);

const tenantQuery = (session, tenant) => (session.role === 'admin' ? `?tenant=${encodeURIComponent(tenant)}` : '');

// ---- small pieces ---------------------------------------------------------------

function Badge({ kind, children }) {
  return html`<span class=${`badge ${kind}`}>${children}</span>`;
}

function Meter({ value, max, label }) {
  const share = max > 0 ? Math.min(1, value / max) : 0;
  const level = share > 0.9 ? 'bad' : share > 0.75 ? 'warn' : 'ok';
  return html`<div class="meter" title=${label}>
    <div class=${`fill ${level}`} style=${{ width: `${Math.round(share * 100)}%` }}></div>
  </div>`;
}

function Card({ title, actions, children, id }) {
  return html`<section class="card" id=${id}>
    <header><h2>${title}</h2>${actions}</header>
    ${children}
  </section>`;
}

function Risk({ result }) {
  if (result.status.classify !== 'done' && result.status.classify !== 'error') return html`<${Badge} kind="muted">${result.status.classify}<//>`;
  if (result.error_code) return html`<${Badge} kind="bad">error ${result.error_code}<//>`;
  return html`<${Badge} kind=${`risk-${result.risk}`}>${result.risk}<//>`;
}

function Labels({ result }) {
  const entries = Object.entries(result.scores ?? {}).sort((a, b) => b[1] - a[1]);
  if (!entries.length) return html`<span class="muted">–</span>`;
  return html`<span class="labels">${entries.map(
    ([label, score]) => html`<span class=${result.labels.includes(label) ? 'label on' : 'label'}>${label} ${score.toFixed(2)}</span>`,
  )}</span>`;
}

// ---- sign-in ------------------------------------------------------------------------

function SignIn({ onSignedIn }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (e) => {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      await api('POST', '/dashboard/api/session', { key: key.trim() });
      setKey('');
      onSignedIn();
    } catch (err) {
      setError(err.message);
    } finally {
      setBusy(false);
    }
  };
  return html`<main class="signin">
    <form class="card" onSubmit=${submit}>
      <h1><img src="/assets/icon.svg" alt="" /> Vigil</h1>
      <p class="muted">Sign in with the gateway's admin key, or a tenant key to see that tenant's clips.</p>
      <label for="key">API key</label>
      <input id="key" name="key" type="password" autocomplete="current-password" required value=${key}
        onInput=${(e) => setKey(e.currentTarget.value)} />
      ${error && html`<p class="error" role="alert">${error}</p>`}
      <button type="submit" disabled=${busy || !key.trim()}>Sign in</button>
    </form>
  </main>`;
}

// ---- status ---------------------------------------------------------------------------

const loadStatus = () => api('GET', '/dashboard/api/status');

function Status() {
  const [s, error] = usePolled(loadStatus, 10_000);
  if (!s) return html`<${Card} title="Status" id="status"><p class=${error ? 'error' : 'muted'}>${error ?? 'Loading…'}</p><//>`;
  const st = s.storage;
  const b = st.bounds;
  return html`<${Card} title="Status" id="status" actions=${html`<${Badge} kind=${s.ready ? 'ok' : 'bad'}>${s.ready ? 'ready' : 'not ready'}<//>`}>
    ${error && html`<p class="error">${error}</p>`}
    <ul class="checks">
      ${Object.entries(s.checks).map(([name, c]) => html`<li>
        <span class=${c.ok ? 'dot ok' : 'dot bad'} aria-label=${c.ok ? 'ok' : 'failing'}></span>
        <strong>${name}</strong> <span class="muted">${c.detail}</span>
      </li>`)}
    </ul>
    <dl class="facts">
      <dt>Model pack</dt>
      <dd>${s.model.pack ?? html`<span class="error">${s.model.error ?? 'none active'}</span>`}
        ${s.model.rollback_target && html`<div class="muted small">rollback to ${s.model.rollback_target}</div>`}</dd>
      <dt>Backend</dt>
      <dd>${s.model.backend ?? '–'}${s.model.backend_reason && html`<div class="muted small">${s.model.backend_reason}</div>`}</dd>
      <dt>Queue</dt>
      <dd>${s.queue.queued} waiting, ${s.queue.running} running</dd>
      <dt>Disk</dt>
      <dd>${bytes(st.disk_free_bytes)} free of ${bytes(st.disk_total_bytes)}
        <${Meter} value=${st.disk_total_bytes - st.disk_free_bytes} max=${st.disk_total_bytes} label="disk used" />
        <div class="muted small">${b.min_free_bytes ? `uploads refused below ${bytes(b.min_free_bytes)} free` : 'no free-space minimum'}</div></dd>
      <dt>Media</dt>
      <dd>${bytes(st.media_bytes)}${b.max_media_bytes ? ` of ${bytes(b.max_media_bytes)}` : ''}
        ${b.max_media_bytes > 0 && html`<${Meter} value=${st.media_bytes} max=${b.max_media_bytes} label="media against its bound" />`}
        <div class="muted small">${count(st.classifications, 'clip')}${b.max_count ? ` of at most ${b.max_count}` : ''}${b.max_age_days ? `, kept ${b.max_age_days} days` : ''}</div></dd>
      <dt>Database</dt>
      <dd>${bytes(st.database_bytes)}</dd>
      <dt>MQTT</dt>
      <dd>${!s.mqtt.enabled ? html`<span class="muted">off</span>` : html`<${Badge} kind=${s.mqtt.connected ? 'ok' : 'bad'}>${s.mqtt.connected ? 'connected' : 'not connected'}<//>
        <div class="muted small">${s.mqtt.url}</div>`}</dd>
      <dt>Up</dt>
      <dd>${since(s.uptime_s)} <span class="muted">· Vigil ${s.version}</span></dd>
    </dl>
  <//>`;
}

// ---- try a clip -------------------------------------------------------------------------

function TryClip({ session, watch, cameras }) {
  const [tenant, setTenant] = useState(session.tenants[0] ?? '');
  const [camera, setCamera] = useState('');
  // the configured cameras of the chosen tenant: the clip gets that camera's masks, zones and labels
  const choices = (cameras ?? []).filter((c) => c.tenant === tenant && c.configured);
  const [progress, setProgress] = useState(null);
  const [message, setMessage] = useState('');
  const [error, setError] = useState('');
  const [dragging, setDragging] = useState(false);
  const input = useRef(null);

  const upload = (file) => {
    if (!file) return;
    setError('');
    setMessage(`Sending ${file.name}…`);
    setProgress(0);
    const form = new FormData();
    if (camera) form.append('camera_id', camera);
    form.append('video', file, file.name);
    // XMLHttpRequest, not fetch: only it reports upload progress.
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `/dashboard/api/classify${tenantQuery(session, tenant)}`);
    xhr.setRequestHeader('X-CSRF-Token', csrfToken);
    xhr.upload.onprogress = (e) => e.lengthComputable && setProgress(e.loaded / e.total);
    xhr.onload = () => {
      let body = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        /* not JSON */
      }
      setProgress(null);
      if (xhr.status === 202 || xhr.status === 200) {
        setMessage(`Accepted; classifying ${file.name}…`);
        watch(body.id, tenant, () => setMessage(''));
      } else {
        setMessage('');
        setError(body?.error?.message ?? `upload failed (HTTP ${xhr.status})`);
      }
      if (input.current) input.current.value = '';
    };
    xhr.onerror = () => {
      setProgress(null);
      setMessage('');
      setError('the upload did not reach the gateway');
    };
    xhr.send(form);
  };

  const drop = (e) => {
    e.preventDefault();
    setDragging(false);
    upload(e.dataTransfer.files[0]);
  };

  return html`<${Card} title="Try a clip" id="try">
    ${session.role === 'admin' && html`<label class="inline">Tenant
      <select value=${tenant} onChange=${(e) => { setTenant(e.currentTarget.value); setCamera(''); }}>
        ${session.tenants.map((t) => html`<option value=${t}>${t}</option>`)}
      </select></label>`}
    <label class="inline">Camera
      <select id="try-camera" value=${camera} onChange=${(e) => setCamera(e.currentTarget.value)}>
        <option value="">none (the pack's rules)</option>
        ${choices.map((c) => html`<option value=${c.id}>${c.name === c.id ? c.id : `${c.name} (${c.id})`}</option>`)}
      </select></label>
    ${camera && html`<p class="muted small">The clip is classified with camera ${camera}'s masks, zones and labels, and listed as its clip.</p>`}
    <label class=${dragging ? 'drop over' : 'drop'}
      onDragOver=${(e) => { e.preventDefault(); setDragging(true); }}
      onDragLeave=${() => setDragging(false)} onDrop=${drop}>
      <input ref=${input} type="file" accept="video/*" id="clip" onChange=${(e) => upload(e.currentTarget.files[0])} />
      <span>Pick a video, or drop one here</span>
    </label>
    ${progress !== null && html`<progress id="upload-progress" max="1" value=${progress}>${Math.round(progress * 100)}%</progress>`}
    ${message && html`<p class="muted" role="status">${message}${progress !== null ? ` ${Math.round(progress * 100)} %` : ''}</p>`}
    ${error && html`<p class="error" role="alert">${error}</p>`}
  <//>`;
}

// ---- recent classifications -------------------------------------------------------------

function Recent({ session, results, open, connected }) {
  return html`<${Card} title="Recent classifications" id="recent"
      actions=${html`<${Badge} kind=${connected ? 'ok' : 'muted'}>${connected ? 'live' : 'reconnecting'}<//>`}>
    ${!results.length && html`<p class="muted">No clips yet.</p>`}
    <ol class="results">
      ${results.map((r) => html`<li key=${r.id}>
        <button class="result" data-id=${r.id} onClick=${() => open(r)}>
          <span class="when">${when(r.created_at)}</span>
          <${Risk} result=${r} />
          <span class="who">${session.role === 'admin' ? html`<span class="muted">${r.tenant}</span> ` : ''}${r.camera_id || r.video.videoname}</span>
          <${Labels} result=${r} />
          <span class="took muted">${isFinal(r) ? `${(r.duration / 1000).toFixed(1)} s` : ''}</span>
          ${r.error_code ? html`<span class="error small">${r.error_msg}</span>` : ''}
        </button>
      </li>`)}
    </ol>
  <//>`;
}

function Detail({ session, result, close, deleted }) {
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState('');
  const q = tenantQuery(session, result.tenant);
  const remove = async () => {
    try {
      await api('DELETE', `/dashboard/api/classify/${result.id}${q}`);
      deleted(result.id);
    } catch (err) {
      setError(err.message);
    }
  };
  const hasVideo = result.status.video === 'done';
  useEffect(() => {
    const onKey = (e) => e.key === 'Escape' && close();
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [close]);
  return html`<div class="overlay" onClick=${(e) => e.target === e.currentTarget && close()}>
    <section class="card detail" role="dialog" aria-label="Classification">
      <header>
        <h2><${Risk} result=${result} /> ${result.camera_id || result.video.videoname}</h2>
        <button class="ghost" onClick=${close} aria-label="Close">✕</button>
      </header>
      <p class="muted small">${when(result.created_at)} · ${result.tenant} · ${result.id}</p>
      <${Labels} result=${result} />
      ${result.error_code ? html`<p class="error">${result.error_msg}</p>` : ''}
      ${hasVideo
        ? html`<video id="highlight" controls autoplay muted playsinline preload="auto" src=${`/dashboard/api/video/annotate/${result.id}${q}`}></video>`
        : html`<p class="muted">No highlight (status.video: ${result.status.video}).</p>`}
      <details>
        <summary>Result JSON</summary>
        <pre id="result-json">${JSON.stringify(result, null, 2)}</pre>
      </details>
      ${error && html`<p class="error" role="alert">${error}</p>`}
      <footer>
        ${confirming
          ? html`<span>Delete the clip, its highlight and its result?</span>
              <button class="danger" id="confirm-delete" onClick=${remove}>Delete</button>
              <button class="ghost" onClick=${() => setConfirming(false)}>Keep</button>`
          : html`<button class="danger outline" id="delete" onClick=${() => setConfirming(true)}>Delete…</button>`}
      </footer>
    </section>
  </div>`;
}

// ---- deliveries, cameras, model packs ------------------------------------------------------

const loadDeliveries = () => api('GET', '/dashboard/api/deliveries');
const loadCameras = () => api('GET', '/dashboard/api/cameras');

function DeliveryLine({ name, sub, d }) {
  return html`<tr>
    <td><strong>${name}</strong><div class="muted small">${sub}</div></td>
    <td class=${d.pending ? 'warn' : ''}>${d.pending}</td>
    <td>${when(d.last_success_at)}</td>
    <td>${d.last_error
      ? html`<span class="error">${d.last_error}</span>
          <div class="muted small">${d.retry_at ? `next try ${when(d.retry_at)}` : when(d.last_error_at)}</div>`
      : '–'}</td>
  </tr>`;
}

// Reloaded when the live stream says a delivery ended (tick); the slow poll only catches waits and retries that end nothing.
function Deliveries({ tick }) {
  const [d, error, reload] = usePolled(loadDeliveries, 120_000);
  useEffect(() => {
    if (tick) reload();
  }, [tick, reload]);
  return html`<${Card} title="Deliveries" id="deliveries">
    ${error && html`<p class="error">${error}</p>`}
    ${d && !d.integrations.length && !d.mqtt && html`<p class="muted">No webhook integration and no MQTT broker configured.</p>`}
    ${d && (d.integrations.length || d.mqtt) && html`<div class="scroll"><table>
      <thead><tr><th>to</th><th>pending</th><th>last success</th><th>last error</th></tr></thead>
      <tbody>
        ${d.mqtt && html`<${DeliveryLine} name="MQTT" sub=${d.mqtt.url} d=${d.mqtt} />`}
        ${d.integrations.map((i) => html`<${DeliveryLine} name=${`${i.tenant} · ${i.flow}`} sub=${i.url} d=${i} />`)}
      </tbody>
    </table></div>`}
  <//>`;
}

/** What a watched camera is doing, as its card says it. */
const WATCH_STATES = { starting: 'starting', watching: 'watching', motion: 'motion', event: 'recording an event', down: 'down' };

function Watching({ watch }) {
  if (!watch) return '';
  const events = watch.last_events.slice(-3).reverse();
  return html`<div class="watch small">
    <${Badge} kind=${watch.state === 'down' ? 'bad' : watch.state === 'event' || watch.state === 'motion' ? 'risk-danger' : 'muted'}>${WATCH_STATES[watch.state] ?? watch.state}<//>
    <span class="muted"> since ${when(watch.since)}</span>
    ${watch.state === 'down' && watch.reason && html`<p class="error small">${watch.reason}</p>`}
    ${events.length > 0 && html`<ul class="events muted">${events.map((e) => html`<li key=${e.motion_start}>motion ${when(e.motion_start)}${e.outcome === 'failed' ? ` · ${e.error ?? 'not recorded'}` : ''}</li>`)}</ul>`}
  </div>`;
}

function CameraCard({ session, card, open, changed }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const q = tenantQuery(session, card.tenant);
  const r = card.last_result;
  const capture = async () => {
    setBusy(true);
    setError('');
    try {
      await api('POST', `/dashboard/api/cameras/${encodeURIComponent(card.id)}/capture${q}`);
    } catch (err) {
      setError(err.message);
    } finally {
      setBusy(false);
      changed();
    }
  };
  return html`<li class=${card.problem ? 'camera problem' : 'camera'} data-camera=${card.id}>
    <div class="thumb">
      ${card.snapshot_id
        ? html`<img src=${`/dashboard/api/snapshot/${card.snapshot_id}${q}`} alt=${`latest snapshot of ${card.name}`} />`
        : html`<span class="muted small">no snapshot yet</span>`}
    </div>
    <div class="about">
      <div class="name"><strong>${card.name}</strong>
        ${card.problem ? html`<${Badge} kind="bad">problem<//>` : r ? html`<${Badge} kind="ok">ok<//>` : ''}</div>
      <div class="muted small">${card.name !== card.id ? `${card.id} · ` : ''}${card.records ? card.url : 'posts clips'}${session.role === 'admin' ? ` · ${card.tenant}` : ''}</div>
      ${r
        ? html`<button class="last" onClick=${() => open(r)} title="open the last result"><${Risk} result=${r} /> <span class="small">${when(r.created_at)}</span></button>`
        : html`<div class="muted small">no clip yet</div>`}
      ${r && html`<${Labels} result=${r} />`}
      ${card.problem && html`<p class="error small">${card.problem.error_msg}</p>`}
      <${Watching} watch=${card.watch} />
      ${card.records && html`<button class="small capture" disabled=${busy} onClick=${capture}>${busy ? 'Recording…' : 'Capture'}</button>`}
      ${error && html`<p class="error small" role="alert">${error}</p>`}
    </div>
  </li>`;
}

function Cameras({ session, data, error, open, changed }) {
  const cards = data?.cameras ?? [];
  const folders = data?.watch_folders ?? [];
  return html`<${Card} title="Cameras and watch folders" id="cameras">
    ${error && html`<p class="error">${error}</p>`}
    ${data && !cards.length && !folders.length && html`<p class="muted">No camera yet: a camera appears here once configured, or once a clip with its camera_id was classified.</p>`}
    ${cards.length > 0 && html`<ul class="cameras">${cards.map((c) => html`<${CameraCard} key=${`${c.tenant}/${c.id}`} session=${session} card=${c} open=${open} changed=${changed} />`)}</ul>`}
    ${folders.length > 0 && html`<div class="scroll"><table>
      <thead><tr><th>watch folder</th><th>tenant</th><th>last clip</th></tr></thead>
      <tbody>${folders.map((w) => html`<tr>
        <td><strong>${w.path}</strong><div class="muted small">${w.camera_id ? `camera ${w.camera_id}` : ''}</div></td>
        <td>${w.tenant}</td><td>${when(w.last_capture_at)}</td></tr>`)}</tbody>
    </table></div>`}
  <//>`;
}

const loadModels = () => api('GET', '/dashboard/api/models');

function Models() {
  const [m, error, reload] = usePolled(loadModels, 60_000);
  const [busy, setBusy] = useState('');
  const [outcome, setOutcome] = useState({ ok: '', error: '' });
  const [pack, setPack] = useState('');
  const run = async (label, path, body) => {
    setBusy(label);
    setOutcome({ ok: '', error: '' });
    try {
      const r = await api('POST', path, body);
      setOutcome({ ok: `${label}: ${r.active} is active; new clips use it.`, error: '' });
    } catch (err) {
      setOutcome({ ok: '', error: err.message });
    } finally {
      setBusy('');
      reload();
    }
  };
  return html`<${Card} title="Model packs" id="models">
    ${error && html`<p class="error">${error}</p>`}
    ${m && html`
      <ul class="packs">
        ${m.installed.map((p) => html`<li>
          <span><strong>${p.id}</strong> <span class="muted small">${p.models.join(', ')}</span></span>
          ${p.active ? html`<${Badge} kind="ok">active<//>`
            : html`<button class="small" disabled=${!!busy} onClick=${() => run('Activate', '/dashboard/api/models/activate', { id: p.id })}>Activate</button>`}
          ${p.rollback_target && html`<${Badge} kind="muted">rollback target<//>`}
        </li>`)}
        ${!m.installed.length && html`<li class="muted">No pack installed.</li>`}
      </ul>
      <div class="row">
        <select value=${pack || m.configured} onChange=${(e) => setPack(e.currentTarget.value)} aria-label="pack to pull">
          ${m.available.map((a) => html`<option value=${a}>${a}</option>`)}
        </select>
        <button disabled=${!!busy} onClick=${() => run('Pull', '/dashboard/api/models/pull', { pack: pack || m.configured })}>${busy === 'Pull' ? 'Pulling…' : 'Pull and activate'}</button>
        <button class="outline" disabled=${!!busy || !m.rollback_target} onClick=${() => run('Roll back', '/dashboard/api/models/rollback')}>Roll back</button>
      </div>`}
    ${outcome.ok && html`<p class="ok" role="status">${outcome.ok}</p>`}
    ${outcome.error && html`<p class="error" role="alert">${outcome.error}</p>`}
  <//>`;
}

// ---- the page -------------------------------------------------------------------------------

function byNewest(a, b) {
  return a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0;
}

/** The list as asked, with what the stream brought while the answer was on its way: results newer
 * than any asked, and a final state over a state the answer still had as pending. */
function mergeNewest(asked, live) {
  const byId = new Map(asked.map((r) => [r.id, r]));
  const newest = asked[0]?.created_at ?? '';
  for (const r of live) {
    const a = byId.get(r.id);
    if (a ? isFinal(r) && !isFinal(a) : r.created_at > newest) byId.set(r.id, r);
  }
  return [...byId.values()].sort(byNewest).slice(0, 100);
}

function Dashboard({ session, signOut }) {
  const [results, setResults] = useState([]);
  const [selected, setSelected] = useState(null);
  const [connected, setConnected] = useState(false);
  const [deliveriesTick, setDeliveriesTick] = useState(0);
  const watching = useRef(new Map());
  // the camera cards: reloaded as clips of a camera come and go (below), polled slowly besides
  const [cameras, camerasError, reloadCameras] = usePolled(loadCameras, 60_000);

  const upsert = useCallback((r) => {
    setResults((list) => [r, ...list.filter((x) => x.id !== r.id)].sort(byNewest).slice(0, 100));
    setSelected((s) => (s && s.id === r.id ? r : s));
    const done = watching.current.get(r.id);
    if (done && isFinal(r)) {
      watching.current.delete(r.id);
      done();
      setSelected(r);
    }
  }, []);

  useEffect(() => {
    const loadResults = () => api('GET', '/dashboard/api/classifications?limit=50')
      .then((d) => setResults((list) => mergeNewest(d.classifications, list)))
      .catch(() => {});
    loadResults();
    const source = new EventSource('/dashboard/api/events');
    source.onopen = () => {
      setConnected(true);
      // what changed while the stream was not open (before it first opened, or while it was
      // away) is asked again once it is, so that nothing falls between an answer and the first event
      loadResults();
      reloadCameras();
      setDeliveriesTick((t) => t + 1);
    };
    source.onerror = () => setConnected(false);
    source.addEventListener('result', (e) => {
      const r = JSON.parse(e.data);
      upsert(r);
      if (r.camera_id && isFinal(r)) reloadCameras();
    });
    source.addEventListener('deleted', (e) => {
      const { id } = JSON.parse(e.data);
      setResults((list) => list.filter((x) => x.id !== id));
      setSelected((s) => (s && s.id === id ? null : s));
      reloadCameras();
    });
    source.addEventListener('deliveries', () => setDeliveriesTick((t) => t + 1));
    source.addEventListener('camera', () => reloadCameras()); // a watched camera's state changed
    return () => source.close();
  }, [upsert, reloadCameras]);

  // A clip sent from this page opens when it is final; a missed event is caught by asking.
  const watch = useCallback((id, tenant, done) => {
    watching.current.set(id, done);
    const q = tenantQuery(session, tenant);
    const ask = async () => {
      if (!watching.current.has(id)) return;
      try {
        upsert(await api('GET', `/dashboard/api/result/${id}${q}`));
      } catch {
        /* asked again below */
      }
      if (watching.current.has(id)) setTimeout(ask, 3000);
    };
    setTimeout(ask, 3000);
  }, [session, upsert]);

  const closeDetail = useCallback(() => setSelected(null), []);

  const deleted = (id) => {
    setResults((list) => list.filter((x) => x.id !== id));
    setSelected(null);
  };

  return html`<div>
    <header class="top">
      <h1><img src="/assets/icon.svg" alt="" /> Vigil</h1>
      <span class="who muted">${session.role === 'admin' ? 'admin' : `tenant ${session.tenant}`}</span>
      <button class="ghost" id="sign-out" onClick=${signOut}>Sign out</button>
    </header>
    <main class="grid">
      <${Status} />
      <${Cameras} session=${session} data=${cameras} error=${camerasError} open=${setSelected} changed=${reloadCameras} />
      <${TryClip} session=${session} watch=${watch} cameras=${cameras?.cameras} />
      <${Recent} session=${session} results=${results} open=${setSelected} connected=${connected} />
      <${Deliveries} tick=${deliveriesTick} />
      ${session.role === 'admin' && html`<${Models} />`}
    </main>
    ${selected && html`<${Detail} session=${session} result=${selected} close=${closeDetail} deleted=${deleted} />`}
  </div>`;
}

function App() {
  const [session, setSession] = useState(undefined);
  const load = useCallback(async () => {
    try {
      const s = await api('GET', '/dashboard/api/session');
      csrfToken = s.csrf;
      setSession(s);
    } catch {
      csrfToken = '';
      setSession(null);
    }
  }, []);
  useEffect(() => {
    onSignedOut = () => {
      csrfToken = '';
      setSession(null);
    };
    load();
  }, [load]);
  const signOut = async () => {
    await api('DELETE', '/dashboard/api/session').catch(() => {});
    csrfToken = '';
    setSession(null);
  };
  if (session === undefined) return html`<p class="muted center">Loading…</p>`;
  if (session === null) return html`<${SignIn} onSignedIn=${load} />`;
  return html`<${Dashboard} session=${session} signOut=${signOut} />`;
}

render(html`<${App} />`, document.getElementById('app'));
