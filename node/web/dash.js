/*
 * labmesh dashboard: every page's script. The page's <body data-page>
 * picks the renderer below. Everything shown comes from the network
 * (board names, branches, messages, logs), so the DOM is built with
 * createElement + textContent only: no innerHTML, no string-built markup,
 * links built with URLSearchParams.
 */
'use strict';

const FILTERS = ['commit', 'branch', 'tree', 'board', 'lab', 'arch', 'suite',
	'path', 'status', 'since', 'run', 'request'];
const STATUSES = ['PASS', 'FAIL', 'ERROR', 'SKIP', 'MISS', 'DONE'];
const args = new URLSearchParams(location.search);

/* ---- DOM helpers ---- */

function el(tag, attrs, ...kids) {
	const e = document.createElement(tag);
	for (const [k, v] of Object.entries(attrs || {})) {
		if (v !== undefined && v !== null)
			e.setAttribute(k, String(v));
	}
	for (const k of kids) {
		if (k === null || k === undefined)
			continue;
		e.appendChild(typeof k === 'object' ? k : document.createTextNode(String(k)));
	}
	return e;
}

function svg(tag, attrs, text) {
	const e = document.createElementNS('http://www.w3.org/2000/svg', tag);
	for (const [k, v] of Object.entries(attrs || {}))
		e.setAttribute(k, String(v));
	if (text !== undefined)
		e.textContent = String(text);
	return e;
}

function href(page, params) {
	const q = new URLSearchParams();
	for (const [k, v] of Object.entries(params || {})) {
		if (v !== undefined && v !== null && v !== '')
			q.set(k, v);
	}
	const s = q.toString();
	return '/' + page + (s ? '?' + s : '');
}

function link(page, params, text, cls) {
	return el('a', { href: href(page, params), class: cls }, text);
}

/* A case's duration: its own, else (0: not measured for the case) its
 * suite's, labelled so; '-' when neither is known. */
function msText(ms) {
	return ms < 10000 ? ms + ' ms' : (ms / 1000).toFixed(1) + ' s';
}

function duration(ms, suiteMs) {
	if (ms > 0)
		return el('span', { class: 'dur' }, msText(ms));
	if (suiteMs > 0)
		return el('span', { class: 'dur suite-time',
			title: 'not measured for this case: the whole suite took this long' },
			'suite ' + msText(suiteMs));
	return el('span', { class: 'dur' }, '-');
}

function badge(status) {
	const s = STATUSES.includes(status) ? status : 'SKIP';
	return el('span', { class: 'st st-' + s }, status);
}

// A maintenance's reason and end, why its health check took it offline,
// who holds a busy board and since when, or the lease holding it and
// until when.
function boardNote(b) {
	const parts = [];
	if (b.reason)
		parts.push('maintenance: ' + b.reason + (b.until ? ' until ' + b.until : ''));
	if (b.health)
		parts.push(b.health);
	if (b.request)
		parts.push('request ' + b.request + ' by ' + b.submitter +
			(b.submitter_name ? ' (' + b.submitter_name + ')' : '') +
			' since ' + b.since);
	if (b.lease)
		parts.push('leased to ' + b.holder +
			(b.holder_name ? ' (' + b.holder_name + ')' : '') +
			' until ' + b.lease_until);
	return parts.join('; ');
}

function short(hex) {
	return String(hex || '').slice(0, 12);
}

function when(ms) {
	if (!ms)
		return '';
	return new Date(ms).toISOString().replace('T', ' ').slice(0, 16);
}

function content() {
	return document.getElementById('content');
}

function setStatus(text, isError, cls) {
	const s = document.getElementById('status');
	s.textContent = text || '';
	s.className = cls || (isError ? 'error' : 'muted');
}

function sleep(ms) {
	return new Promise(resolve => setTimeout(resolve, ms));
}

function setTitle(text) {
	document.getElementById('title').textContent = text;
}

function table(headers, rows, cls) {
	const t = el('table', { class: cls });
	t.appendChild(el('thead', {}, el('tr', {}, ...headers.map(h => el('th', {}, h)))));
	const body = el('tbody');
	for (const r of rows)
		body.appendChild(el('tr', {}, ...r.map(c =>
			(c && c.nodeName === 'TD') ? c : el('td', {}, c))));
	t.appendChild(body);
	return t;
}

async function api(path, params) {
	const r = await fetch(href('api/' + path, params), {
		headers: { Accept: 'application/json' } });
	let data = null;
	try {
		data = await r.json();
	} catch (e) {
		data = { error: 'bad answer (' + r.status + ')' };
	}
	return { ok: r.ok, status: r.status, data: data };
}

function filtersFromArgs(extra) {
	const p = {};
	for (const k of FILTERS.concat(extra || [])) {
		if (args.get(k))
			p[k] = args.get(k);
	}
	return p;
}

/* A small GET form that reloads the page with its fields as the query. */
function filterForm(fields) {
	const f = el('form', { class: 'filters', method: 'get' });
	for (const [name, label, value] of fields) {
		f.appendChild(el('label', {}, label,
			el('input', { name: name, value: value || args.get(name) || '' })));
	}
	f.appendChild(el('button', { type: 'submit' }, 'Show'));
	return f;
}

/* ---- the network ---- */

async function pageNetwork() {
	const [st, boards, peers, commits, reqs] = await Promise.all([
		api('status'), api('boards'), api('peers'), api('commits'),
		api('requests')]);
	const c = content();
	if (st.ok) {
		setTitle('The network, seen from ' + st.data.lab);
		c.appendChild(el('p', { class: 'muted' },
			'Node ', el('code', {}, short(st.data.id)), ' · ',
			String(st.data.peers_up), ' of ', String(st.data.peers),
			' peers up · ', String(st.data.records), ' records'));
	}
	const bl = boards.ok && Array.isArray(boards.data) ? boards.data : [];
	const labs = new Map();
	for (const b of bl) {
		if (!labs.has(b.lab))
			labs.set(b.lab, []);
		labs.get(b.lab).push(b);
	}
	c.appendChild(el('h2', {}, 'Labs'));
	const cards = el('div', { class: 'cards' });
	for (const [lab, bs] of labs) {
		const busy = bs.filter(b => b.state === 'busy').length;
		const queue = bs.reduce((n, b) => n + (b.queue || 0), 0);
		cards.appendChild(el('div', { class: 'card lab' },
			el('h3', {}, lab),
			el('div', {}, bs.length + ' board' + (bs.length === 1 ? '' : 's') +
				', ' + busy + ' busy, ' + queue + ' queued')));
	}
	if (!labs.size)
		cards.appendChild(el('p', { class: 'muted' }, boards.ok ?
			'No adverts yet.' : 'The node does not answer: ' + boards.data.error));
	c.appendChild(cards);

	c.appendChild(el('h2', {}, 'Boards'));
	c.appendChild(table(['Lab', 'Board', 'Arch', 'Tags', 'State', 'Queue', 'Note'],
		bl.map(b => [b.lab, b.board, b.arch, (b.tags || []).join(' '),
			el('td', { class: 'state-' + b.state }, b.state),
			el('td', { class: 'num' }, String(b.queue)), boardNote(b)]),
		'boards'));

	c.appendChild(el('h2', {}, 'Peers'));
	const pl = peers.ok && Array.isArray(peers.data) ? peers.data : [];
	c.appendChild(table(['Id', 'Lab', 'Endpoint', 'State', 'Last seen', 'RTT'],
		pl.map(p => [el('td', { class: 'mono' }, short(p.id)), p.lab,
			p.endpoint, p.state,
			p.last_seen_s === undefined ? '' : p.last_seen_s + ' s',
			p.rtt_ms === undefined ? '' : p.rtt_ms + ' ms'])));

	c.appendChild(el('h2', {}, 'Commits tested'));
	const cl = commits.ok ? commits.data.commits : [];
	c.appendChild(table(['Commit', 'Branch', 'Tree', 'Boards', 'Runs',
		'Failed runs', 'Latest', ''],
		cl.map((k, i) => [
			el('td', { class: 'mono' }, k.commit ? link('matrix.html', { commit: k.commit },
				short(k.commit)) : el('span', { class: 'muted' }, '(no commit)')),
			k.branch, k.tree,
			el('td', { class: 'num' }, String(k.boards)),
			el('td', { class: 'num' }, String(k.runs)),
			el('td', { class: 'num' }, String(k.failed_runs)),
			when(k.end_ms),
			/* the oldest commit has none before it to compare with */
			i + 1 < cl.length && cl[i + 1].commit && k.commit &&
				cl[i + 1].commit !== k.commit ? link('compare.html',
				{ base: cl[i + 1].commit, new: k.commit }, 'vs previous') :
				el('td', { class: 'muted' }, i + 1 === cl.length ? 'oldest' : '')
		]), 'commits'));

	c.appendChild(el('h2', {}, 'Requests'));
	const rl = reqs.ok ? reqs.data.requests : [];
	const states = await Promise.all(rl.slice(0, 20).map(r =>
		api('progress', { id: r.request }).then(p => !p.ok ? '?' :
			p.data.done ? 'finished' : p.data.labs.some(l =>
				l.boards.length) ? 'running' : 'waiting')));
	c.appendChild(table(['Request', 'Submitter', 'State', 'Submitted', 'Kernel',
		'Branch', 'Suites'],
		rl.map((r, i) => [
			el('td', { class: 'mono' }, link('request.html', { id: r.request }, short(r.request))),
			el('td', { class: 'mono' }, short(r.submitter)),
			el('td', { class: 'state-' + (states[i] || '') }, states[i] || ''),
			when(r.created_ms),
			r.kernel === 'none' ? 'boards as they are' :
				short(r.commit) + (r.describe ? ' (' + r.describe + ')' : ''),
			r.branch, r.suites.join(', ')]), 'requests'));
	if (!rl.length)
		c.appendChild(el('p', { class: 'muted' }, reqs.ok ?
			'No unexpired requests in this node\'s store.' : reqs.data.error));
	setStatus(commits.ok ? 'Refreshes every 15 s.' : commits.data.error, !commits.ok);
	/* board states and queues change: keep the picture current */
	setTimeout(() => location.reload(), 15000);
}

/* ---- the matrix of a commit ---- */

function matrixTable(m) {
	const t = el('table', { class: 'matrix', id: 'matrix' });
	t.appendChild(el('thead', {}, el('tr', {}, el('th', {}, 'Lab'),
		el('th', {}, 'Board'), el('th', {}, 'Arch'),
		...m.suites.map(s => el('th', {}, s)))));
	const body = el('tbody');
	for (const b of m.boards) {
		const tr = el('tr', { 'data-lab': b.lab, 'data-board': b.board },
			el('td', {}, b.lab), el('td', { class: 'board' }, b.board),
			el('td', {}, b.arch));
		const cells = new Map(b.cells.map(x => [x.suite, x]));
		for (const s of m.suites) {
			const x = cells.get(s);
			if (!x) {
				tr.appendChild(el('td', { class: 'cell empty' }, '–'));
				continue;
			}
			const counts = STATUSES.filter(k => x[k.toLowerCase()])
				.map(k => x[k.toLowerCase()] + ' ' + k.toLowerCase()).join(', ') +
				/* a benchmark's cell shows its headline number */
				(x.headline ? (STATUSES.some(k => x[k.toLowerCase()]) ? ' · ' : '') +
					Number(x.headline.value.toPrecision(4)) +
					(x.headline.unit ? ' ' + x.headline.unit : '') : '');
			/* a suite that SKIPped or broke as a whole (no case to
			 * count) says why, as the text matrix does; any cell's
			 * reason is its tooltip */
			const why = counts || x.reason || '';
			tr.appendChild(el('td', {
				class: 'cell st-' + x.status, 'data-suite': s,
				'data-status': x.status, title: x.reason || undefined },
			el('a', { href: href('cases.html', { run: x.run, suite: s }) },
				x.status, el('span', { class: 'counts' }, why)),
			el('a', { class: 'cell-log', href: href('log.html', { run: x.run, suite: s }) },
				'log')));
		}
		body.appendChild(tr);
	}
	t.appendChild(body);
	return t;
}

async function pageMatrix() {
	const p = filtersFromArgs();
	if (!p.commit && !p.request) {
		const c = await api('commits');
		if (c.ok && c.data.commits.length)
			p.commit = c.data.commits[0].commit;
	}
	content().appendChild(filterForm([['commit', 'Commit', p.commit],
		['tree', 'Tree'], ['branch', 'Branch'], ['since', 'Since (7d, YYYY-MM-DD)'],
		['board', 'Board'], ['lab', 'Lab'], ['suite', 'Suite'],
		['path', 'Path']]));
	p.view = 'matrix';
	const r = await api('query', p);
	if (!r.ok) {
		setStatus(r.data.error, true);
		return;
	}
	const m = r.data;
	setTitle('Matrix of ' + (short(m.commit) || (p.request ? 'request ' +
		short(p.request) : 'runs without a commit')));
	content().appendChild(el('p', {}, 'Commit ', el('code', {}, m.commit || 'none'),
		' · ', m.boards.length + ' boards × ' + m.suites.length + ' suites · ',
		link('history.html', {}, 'history of a test'), ' · click a cell for its cases and log'));
	const search = el('input', { id: 'search', type: 'search',
		placeholder: 'search boards, labs, archs…' });
	content().appendChild(el('p', { class: 'search' }, search));
	const mt = matrixTable(m);
	content().appendChild(mt);
	/* the search keeps the rows whose text has every word typed */
	search.addEventListener('input', () => {
		const words = search.value.toLowerCase().split(/\s+/).filter(w => w);
		for (const tr of mt.tBodies[0].rows)
			tr.hidden = !words.every(w => tr.textContent.toLowerCase().includes(w));
	});
	content().appendChild(el('p', { class: 'legend' },
		...STATUSES.map(s => el('span', {}, badge(s)))));
	setStatus('');
}

/* ---- the cases of a run's suite ---- */

/*
 * A failed build's message is "build failed (exit N): " and the failing
 * lines of its log joined by " | ": shown one line each, as in the log.
 */
function caseMessage(k) {
	const m = /^(build failed \(exit \d+\)): (.*)$/s.exec(k.message || '');
	if (k.suite !== 'build' || !m)
		return el('td', { class: 'message' }, k.message);
	return el('td', { class: 'message build-fail' }, el('div', {}, m[1] + ':'),
		...m[2].split(' | ').map(ln => el('div', { class: 'build-line' }, ln)));
}

async function pageCases() {
	const p = filtersFromArgs();
	if (!p.run) {
		setStatus('Give a run (follow a cell of the matrix).', true);
		return;
	}
	p.view = 'list';
	const r = await api('query', p);
	if (!r.ok) {
		setStatus(r.data.error, true);
		return;
	}
	const cs = r.data.cases;
	const first = cs[0] || {};
	setTitle((p.suite || 'All suites') + ' on ' + (first.board || '?'));
	const c = content();
	c.appendChild(el('p', {},
		'Lab ', first.lab || '', ' · board ', el('b', { id: 'board' }, first.board || ''),
		' · commit ', link('matrix.html', { commit: first.commit }, short(first.commit)),
		' · branch ', el('span', { id: 'branch' }, first.branch || ''),
		' · run ', el('code', {}, short(p.run)), ' · ',
		link('log.html', { run: p.run, suite: p.suite }, 'the log', 'loglink')));
	const counts = {};
	for (const k of cs)
		counts[k.status] = (counts[k.status] || 0) + 1;
	c.appendChild(el('p', {}, ...Object.entries(counts).map(([s, n]) =>
		el('span', {}, badge(s), ' ' + n + '  '))));
	c.appendChild(table(['Test', 'Status', 'Duration', 'Message'],
		cs.map(k => [link('history.html', { test: k.path }, k.path),
			el('td', {}, badge(k.status), ...triage(k)),
			el('td', { class: 'num' }, duration(k.duration_ms, k.suite_duration_ms)),
			caseMessage(k)]), 'cases'));
	setStatus('');
}

/* ---- a log ---- */

/*
 * A log this node lacks is fetched from the lab that holds it: the API
 * answers 202 with who holds it while it travels; ask again each second
 * (the node gives a fetch 10 minutes).
 */
const LOG_WAIT_S = 600;

async function fetchLog(p) {
	const t0 = Date.now();
	for (;;) {
		const r = await fetch(href('api/log', p));
		if (r.status !== 202)
			return r;
		let what = 'fetching the log from the network';
		try {
			what = (await r.json()).fetching;
		} catch (e) { /* keep the default */ }
		const s = Math.round((Date.now() - t0) / 1000);
		if (s > LOG_WAIT_S)
			return r;
		setStatus(what + '… (' + s + ' s)', false, 'fetching');
		await sleep(1000);
	}
}

/* A line that reports a failure: TAP's "not ok", a FAIL verdict, a
 * kernel BUG or oops. */
function isFailLine(ln) {
	return /^\s*(#\s*)?not ok\b/.test(ln) || /\b(FAIL|FAILED|TFAIL|BUG:|Oops)\b/.test(ln);
}

async function pageLog() {
	const p = { run: args.get('run'), suite: args.get('suite'), name: args.get('name') };
	setTitle('Log of ' + (p.suite || 'the run') + ' · run ' + short(p.run));
	const r = await fetchLog(p);
	if (!r.ok || r.status === 202) {
		let msg = 'HTTP ' + r.status;
		try {
			msg = (await r.json()).error;
		} catch (e) { /* keep the status */ }
		setStatus(msg, true);
		return;
	}
	const text = await r.text();
	const lines = text.split('\n');
	if (lines.length && lines[lines.length - 1] === '')
		lines.pop();
	const failed = lines.filter(isFailLine).length;
	content().appendChild(el('p', {}, link('cases.html', { run: p.run, suite: p.suite },
		'back to the cases'), ' · ' + text.length + ' bytes, ' + lines.length +
		' lines, ' + failed + ' failed · ',
		el('a', { href: href('api/log', p), download: 'log-' + short(p.run) +
			(p.suite ? '-' + p.suite : '') + '.txt', id: 'raw' }, 'raw log')));
	const pre = el('pre', { class: 'log', id: 'log' });
	lines.forEach((ln, i) => {
		const n = String(i + 1);
		pre.appendChild(el('span', { class: 'line' + (isFailLine(ln) ? ' fail' : ''),
			id: 'L' + n }, el('a', { class: 'ln', href: '#L' + n }, n), ln + '\n'));
	});
	content().appendChild(pre);
	if (location.hash) {
		const t = document.getElementById(location.hash.slice(1));
		if (t) {
			t.classList.add('target');
			t.scrollIntoView({ block: 'center' });
		}
	}
	setStatus('');
}

/* ---- regressions between two commits ---- */

function changeList(items, cls, fmt) {
	const ul = el('ul', { class: cls });
	for (const x of items)
		ul.appendChild(el('li', {}, ...fmt(x)));
	return ul;
}

/* A regression's verdict (re-runs) and the known mark covering it. */
function triage(x) {
	const out = [];
	const v = x.verdict;
	if (v) {
		const runs = v.runs + v.other_runs, passes = v.passes + v.other_passes;
		const what = v.verdict === 'flaky' ? 'flaky: ' + passes + ' of ' + runs +
			' re-runs passed' : v.verdict === 'board-specific' ?
			'board-specific: passed ' + v.other_passes + ' of ' + v.other_runs +
			' on other boards' : 'confirmed: failed ' + (runs - passes) + ' of ' +
			runs + ' re-runs';
		out.push(' ', el('span', { class: 'verdict ' + v.verdict }, what));
	}
	const k = x.known;
	if (k) {
		out.push(' ', el('span', { class: 'known' }, 'known until ' +
			k.expires.slice(0, 10)));
		/* any node may write a mark: only web links become links */
		if (/^https?:\/\//.test(k.link))
			out.push(' ', el('a', { href: k.link, rel: 'noopener' }, 'discussion'));
		else if (k.link)
			out.push(' ', el('span', { class: 'muted' }, k.link));
		if (k.text)
			out.push(' ', el('span', { class: 'muted' }, k.text));
	}
	return out;
}

async function pageCompare() {
	const p = filtersFromArgs(['base', 'new', 'threshold']);
	delete p.commit;
	if (!p.base || !p.new) {
		const c = await api('commits');
		if (c.ok && c.data.commits.length > 1) {
			p.new = p.new || c.data.commits[0].commit;
			p.base = p.base || c.data.commits[1].commit;
		}
	}
	content().appendChild(filterForm([['base', 'Base', p.base], ['new', 'New', p.new],
		['board', 'Board'], ['threshold', 'Metric threshold %']]));
	if (p.base && p.base === p.new) {
		setStatus('Base and new are the same commit: there is nothing before it' +
			' to compare with.', true);
		return;
	}
	const r = await api('compare', p);
	if (!r.ok) {
		setStatus(r.data.error, true);
		return;
	}
	const d = r.data;
	setTitle('Regressions from ' + (short(d.base.commit) || short(p.base)) + ' to ' +
		(short(d.new.commit) || short(p.new)));
	const c = content();
	const s = d.summary || {};
	c.appendChild(el('p', { id: 'summary' },
		el('b', { class: s.regressions ? 'regress' : 'none' },
			(s.regressions || 0) + ' regressions'), ', ',
		el('b', { class: s.fixes ? 'fix' : 'none' }, (s.fixes || 0) + ' fixes'), ', ',
		(s.new || 0) + ' new, ' + (s.vanished || 0) + ' vanished, ' +
		(s.metric_regressions || 0) + ' metric regressions (threshold ' +
		d.threshold_pct + '%)' + (s.known ? ', ' + s.known +
		' known failures not counted' : '')));
	for (const b of d.boards || []) {
		c.appendChild(el('h2', {}, b.board + ' (' + b.lab + ')'));
		const tf = x => [link('history.html', { test: x.path, board: b.board }, x.path),
			' ', badge(x.base), ' → ', badge(x.new), ...triage(x)];
		if (b.regressions.length) {
			c.appendChild(el('h3', { class: 'regress' }, 'Regressions'));
			c.appendChild(changeList(b.regressions, 'regressions', tf));
		}
		if (b.fixes.length) {
			c.appendChild(el('h3', { class: 'fix' }, 'Fixes'));
			c.appendChild(changeList(b.fixes, 'fixes', tf));
		}
		if (b.metrics.length) {
			c.appendChild(el('h3', {}, 'Metrics'));
			c.appendChild(changeList(b.metrics, 'metrics', x => [
				link('trends.html', { metric: x.path }, x.path),
				': ' + x.base + ' → ' + x.new + ' ' + x.unit +
				' (' + x.change_pct + '%, ' + x.better + ' is better)']));
		}
		if ((b.known || []).length) {
			c.appendChild(el('h3', { class: 'known' }, 'Known failures'));
			c.appendChild(changeList(b.known, 'known', tf));
		}
		if (!b.regressions.length && !b.fixes.length && !b.metrics.length)
			c.appendChild(el('p', { class: 'muted' }, 'No change.'));
	}
	setStatus('');
}

/* ---- a test's history ---- */

async function pageHistory() {
	const p = filtersFromArgs(['test']);
	const form = filterForm([['test', 'Test (suite.path, or a glob)'],
		['board', 'Board'], ['lab', 'Lab']]);
	content().appendChild(form);
	/* pick a test from those of the latest commit (and the metrics) */
	const [latest, metrics] = await Promise.all([api('commits'), api('metrics')]);
	const names = new Set();
	if (latest.ok && latest.data.commits.length) {
		const l = await api('query', { commit: latest.data.commits[0].commit,
			view: 'list' });
		if (l.ok)
			for (const k of l.data.cases.slice(0, 20000))
				names.add(k.path);
	}
	if (metrics.ok)
		for (const x of metrics.data.metrics || [])
			names.add(x.path);
	const dl = el('datalist', { id: 'tests' },
		...[...names].sort().map(n => el('option', { value: n })));
	form.appendChild(dl);
	form.querySelector('input[name=test]').setAttribute('list', 'tests');
	if (!p.test) {
		setStatus('Give a test, e.g. from a cases page.');
		return;
	}
	setTitle('History of ' + p.test);
	const r = await api('history', p);
	if (!r.ok) {
		setStatus(r.data.error, true);
		return;
	}
	const h = r.data.history;
	content().appendChild(table(['Time', 'Commit', 'Branch', 'Lab', 'Board', 'Result', 'Message'],
		h.map(x => [String(x.time).replace('T', ' ').slice(0, 19),
			el('td', { class: 'mono' },
			link('matrix.html', { commit: x.commit }, short(x.commit))),
			x.branch, x.lab, x.board,
			'value' in x ? el('td', { class: 'num' }, x.value + ' ' + x.unit) :
				el('td', {}, badge(x.status), ' ', duration(x.duration_ms, x.suite_duration_ms)),
			el('td', { class: 'message' }, x.message || '')]), 'history'));
	setStatus(h.length + ' results');
}

/* ---- benchmark trends ---- */

function chart(points, unit) {
	const W = 420, H = 230, L = 56, R = 34, T = 26, B = 40;
	const s = svg('svg', { width: W, height: H, viewBox: '0 0 ' + W + ' ' + H,
		role: 'img' });
	const vs = points.map(p => p.value);
	let lo = Math.min(...vs), hi = Math.max(...vs);
	if (lo === hi) {
		lo -= 1;
		hi += 1;
	}
	const pad = (hi - lo) * 0.08; /* keep points off the frame */
	lo -= pad;
	hi += pad;
	const x = i => L + (points.length === 1 ? (W - L - R) / 2 :
		i * (W - L - R) / (points.length - 1));
	const y = v => T + (hi - v) * (H - T - B) / (hi - lo);
	for (let k = 0; k <= 4; k++) {
		const v = lo + (hi - lo) * k / 4;
		s.appendChild(svg('line', { class: 'grid', x1: L, x2: W - R, y1: y(v), y2: y(v) }));
		s.appendChild(svg('text', { x: L - 6, y: y(v) + 4, 'text-anchor': 'end' },
			Number(v.toPrecision(4))));
	}
	s.appendChild(svg('line', { class: 'axis', x1: L, x2: L, y1: T, y2: H - B }));
	s.appendChild(svg('line', { class: 'axis', x1: L, x2: W - R, y1: H - B, y2: H - B }));
	s.appendChild(svg('polyline', { class: 'line',
		points: points.map((p, i) => x(i) + ',' + y(p.value)).join(' ') }));
	points.forEach((p, i) => {
		const c = svg('circle', { class: 'pt', cx: x(i), cy: y(p.value), r: 4 });
		c.appendChild(svg('title', {}, short(p.commit) + ' ' + p.time + ': ' +
			p.value + ' ' + unit));
		s.appendChild(c);
		/* every point says its value, and what it was measured on: the
		 * commit, or the day and time of a run without one */
		s.appendChild(svg('text', { class: 'val', x: x(i), y: y(p.value) - 8,
			'text-anchor': 'middle' }, Number(Number(p.value).toPrecision(4))));
		const xl = p.commit ? String(p.commit).slice(0, 7) :
			String(p.time).replace('T', ' ').slice(5, 16);
		const tilt = points.length > 6;
		s.appendChild(svg('text', { class: 'xl', x: x(i), y: H - B + 16,
			'text-anchor': tilt ? 'end' : 'middle',
			transform: tilt ? 'rotate(-30 ' + x(i) + ' ' + (H - B + 16) + ')' : '' }, xl));
	});
	s.appendChild(svg('text', { class: 'unit', x: L, y: 12 }, unit ? 'value (' + unit + ')' : 'value'));
	s.appendChild(svg('text', { x: (L + W - R) / 2, y: H - 6, 'text-anchor': 'middle' },
		points.some(p => p.commit) ? 'commits, oldest to newest' :
			'runs, oldest to newest'));
	return s;
}

async function pageTrends() {
	const m = await api('metrics');
	const list = m.ok ? m.data.metrics : [];
	const metric = args.get('metric') || (list[0] && list[0].path);
	const f = el('form', { class: 'filters', method: 'get' });
	const sel = el('select', { name: 'metric' });
	for (const x of list) {
		const o = el('option', { value: x.path }, x.path + (x.unit ? ' (' + x.unit + ')' : ''));
		if (x.path === metric)
			o.selected = true;
		sel.appendChild(o);
	}
	f.appendChild(el('label', {}, 'Metric', sel));
	f.appendChild(el('button', { type: 'submit' }, 'Show'));
	content().appendChild(f);
	if (!metric) {
		setStatus('No metrics in the results yet.');
		return;
	}
	setTitle('Trend of ' + metric);
	const p = filtersFromArgs();
	p.test = metric;
	const r = await api('history', p);
	if (!r.ok) {
		setStatus(r.data.error, true);
		return;
	}
	const per = new Map();
	for (const x of r.data.history) {
		if (!('value' in x))
			continue;
		const k = x.lab + ' / ' + x.board;
		if (!per.has(k))
			per.set(k, []);
		per.get(k).push(x);
	}
	const charts = el('div', { class: 'charts' });
	for (const [k, pts] of [...per].sort()) {
		pts.reverse(); /* history is newest first */
		charts.appendChild(el('div', { class: 'chart' }, el('h3', {}, k),
			chart(pts, pts[0].unit)));
	}
	content().appendChild(charts);
	setStatus(per.size + (per.size === 1 ? ' board' : ' boards'));
}

/* ---- a request's progress ---- */

function progressTable(pr) {
	const rows = [];
	for (const l of pr.labs) {
		if (!l.boards.length) {
			rows.push([l.lab, el('td', { class: 'answer-' + l.answer }, l.answer),
				'', '', l.reason, '']);
			continue;
		}
		for (const b of l.boards) {
			const detail = b.state === 'running' ?
				'suite ' + b.suite_index + ' of ' + b.suite_count : b.text;
			rows.push([l.lab, el('td', { class: 'answer-' + l.answer }, l.answer),
				el('td', { class: 'board' }, b.board),
				el('td', { class: 'state-' + b.state }, b.state), detail,
				b.run ? el('td', {}, badge(b.status), ' ',
					link('cases.html', { run: b.run }, short(b.run))) : '']);
		}
		/* boards the lab refused the request, with the rule */
		for (const r of l.refused || [])
			rows.push([l.lab, el('td', { class: 'answer-' + l.answer }, l.answer),
				el('td', { class: 'board' }, r.board),
				el('td', { class: 'state-refused' }, 'refused'), r.reason, '']);
	}
	return table(['Lab', 'Answer', 'Board', 'State', 'Progress', 'Result'],
		rows, 'progress');
}

async function pageRequest() {
	const id = args.get('id') || args.get('request');
	content().appendChild(filterForm([['id', 'Request id (hex)', id]]));
	if (!id) {
		setStatus('Give a request id.');
		return;
	}
	setTitle('Request ' + short(id));
	const [prog, jobs, res, reqs] = await Promise.all([api('progress', { id: id }),
		api('request', { id: id }), api('query', { request: id, view: 'matrix' }),
		api('requests')]);
	const c = content();
	const rq = reqs.ok ? reqs.data.requests.find(r => r.request.startsWith(id)) : null;
	if (rq)
		c.appendChild(el('dl', { class: 'facts', id: 'facts' },
			el('dt', {}, 'Request'), el('dd', { class: 'mono' }, rq.request),
			el('dt', {}, 'Submitter'), el('dd', { class: 'mono' }, rq.submitter),
			el('dt', {}, 'Kernel'), el('dd', {}, rq.kernel === 'none' ?
				'none: the boards as they are' : short(rq.commit) +
				(rq.describe ? ' (' + rq.describe + ')' : '') +
				(rq.branch ? ' on ' + rq.branch : '')),
			el('dt', {}, 'Suites'), el('dd', {}, rq.suites.join(', ')),
			el('dt', {}, 'Submitted'), el('dd', {}, when(rq.created_ms)),
			el('dt', {}, 'Expires'), el('dd', {}, when(rq.expires_ms))));
	else
		c.appendChild(el('p', { class: 'muted' },
			'The request itself has expired from this node\'s store: its answers and runs follow.'));
	/* a lab that cannot serve a request says nothing unless the request
	 * names it: the labs here are those that answered or are named */
	c.appendChild(el('h2', {}, 'The labs that answered'));
	const done = prog.ok && prog.data.done;
	if (prog.ok) {
		c.appendChild(el('p', { id: 'progress-summary' }, prog.data.labs.filter(
			l => l.answer === 'accepted').length + ' labs accepted, ' +
			prog.data.labs.filter(l => l.answer === 'declined').length +
			' declined · ' + (done ? 'finished' : 'in progress')));
		c.appendChild(progressTable(prog.data));
	} else {
		c.appendChild(el('p', { class: 'muted' }, prog.data.error));
	}
	c.appendChild(el('h2', {}, 'Jobs in this lab'));
	if (jobs.ok) {
		const js = jobs.data.jobs;
		c.appendChild(table(['Board', 'State', 'Progress', 'Attempts', 'Updated'],
			js.map(j => [j.board,
				el('td', { class: 'state-' + j.state }, j.state),
				j.text, el('td', { class: 'num' }, String(j.attempts)),
				when(j.updated_ms)]), 'jobs'));
		if (!js.length)
			c.appendChild(el('p', { class: 'muted' }, 'No jobs of this request in this lab.'));
	} else {
		c.appendChild(el('p', { class: 'muted' }, jobs.data.error));
	}
	c.appendChild(el('h2', {}, 'Results so far'));
	if (res.ok)
		c.appendChild(matrixTable(res.data));
	else
		c.appendChild(el('p', { class: 'muted' }, res.data.error));
	if (done) {
		setStatus('Every lab it names answered and every board that took it finished.');
		return;
	}
	setStatus('Refreshes every 5 s.');
	setTimeout(() => location.reload(), 5000);
}

/* bisect.html: every bisection this node holds, or one (?id=): what was
 * asked, each step with its verdict, request and run, the first bad
 * commit. */
function bisectFacts(b) {
	return el('dl', { class: 'facts', id: 'facts' },
		el('dt', {}, 'Tree'), el('dd', { class: 'mono' }, b.tree),
		el('dt', {}, 'Good'), el('dd', { class: 'mono' }, b.good),
		el('dt', {}, 'Bad'), el('dd', { class: 'mono' }, b.bad),
		el('dt', {}, 'Test'), el('dd', {}, b.test),
		el('dt', {}, 'Config'), el('dd', {}, b.config || '-'),
		el('dt', {}, 'Commits'), el('dd', {}, String(b.commits)),
		el('dt', {}, 'State'), el('dd', { id: 'bisect-state' }, b.state +
			(b.text ? ': ' + b.text : '')),
		el('dt', {}, 'First bad commit'),
		el('dd', { class: 'mono', id: 'first-bad' }, b.first_bad || '-'));
}

function bisectSteps(b) {
	return table(['Step', 'Commit', 'Verdict', 'Board', 'Request', 'Run'],
		b.steps.map((s, i) => [String(i + 1),
			el('td', { class: 'mono' }, short(s.commit)),
			el('td', { class: 'verdict-' + s.verdict }, s.verdict),
			s.lab ? s.lab + '/' + s.board : '-',
			s.request ? link('request.html', { id: s.request }, short(s.request)) : '-',
			s.run ? link('cases.html', { run: s.run, suite: b.test.split('.')[0] },
				short(s.run)) : '-']), 'steps');
}

async function pageBisect() {
	const id = args.get('id');
	content().appendChild(filterForm([['id', 'Bisection id (hex)', id]]));
	const c = content();
	if (!id) {
		const all = await api('bisections');
		if (!all.ok) {
			setStatus(all.data.error, true);
			return;
		}
		c.appendChild(table(['Bisection', 'State', 'Steps', 'First bad', 'Test', 'Tree'],
			all.data.map(b => [link('bisect.html', { id: b.bisection }, short(b.bisection)),
				b.state, String(b.steps.length),
				el('td', { class: 'mono' }, short(b.first_bad) || '-'),
				b.test, b.tree]), 'bisections'));
		setStatus(all.data.length ? '' : 'No bisection in this node\'s store.');
		return;
	}
	setTitle('Bisection ' + short(id));
	const one = await api('bisect', { id: id });
	if (!one.ok) {
		setStatus(one.data.error, true);
		return;
	}
	c.appendChild(bisectFacts(one.data));
	c.appendChild(el('h2', {}, 'Steps'));
	c.appendChild(bisectSteps(one.data));
	if (one.data.state !== 'running') {
		setStatus('');
		return;
	}
	setStatus('Refreshes every 5 s.');
	setTimeout(() => location.reload(), 5000);
}

const PAGES = {
	network: pageNetwork, matrix: pageMatrix, cases: pageCases, log: pageLog,
	compare: pageCompare, history: pageHistory, trends: pageTrends,
	request: pageRequest, bisect: pageBisect,
};

(PAGES[document.body.dataset.page] || pageNetwork)().catch(e =>
	setStatus('Failed: ' + e, true));
