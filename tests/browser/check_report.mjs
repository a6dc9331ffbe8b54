// Open a buildwall report from disk in Debian's chromium (headless, through
// playwright-core) and print what it shows as one JSON object: console
// errors, every request, dialogs, the charts' bars and groups, the advice
// rows, the load time; of a survey's page, its modules, bars and shared
// sources. The e2e tests (tests/e2e/t97_report.sh, t98_survey.sh) assert on it.
// usage: node check_report.mjs REPORT.html SCREENSHOT.png on|off (JavaScript)
import { chromium } from 'playwright-core';
import path from 'node:path';

const [file, screenshot, js] = process.argv.slice(2);
const browser = await chromium.launch({
	executablePath: '/usr/bin/chromium',
	args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
		'--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
});
try {
	const context = await browser.newContext({ javaScriptEnabled: js !== 'off', viewport: { width: 1280, height: 900 } });
	const page = await context.newPage();
	const errors = [], requests = [], dialogs = [];
	page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
	page.on('pageerror', (e) => errors.push(String(e)));
	page.on('request', (r) => requests.push(r.url()));
	page.on('dialog', (d) => { dialogs.push(d.message()); d.dismiss(); });
	const url = 'file://' + path.resolve(file);
	const start = Date.now();
	await page.goto(url, { waitUntil: 'load' });
	await page.locator('section#method, section#shared').first().waitFor();
	const loadMs = Date.now() - start;
	const attrs = (sel, name) => page.locator(sel).evaluateAll((els, n) => els.map((e) => e.getAttribute(n)), name);
	const groups = [];
	for (const g of await page.locator('svg.passes g.tu').all()) {
		const passes = await g.locator('g.pass').evaluateAll((els) =>
			els.map((e) => [e.getAttribute('data-pass'), e.getAttribute('data-arch') || null]));
		groups.push({ tu: await g.getAttribute('data-tu'), passes });
	}
	const charts = await page.locator('svg.chart').all();
	let visible = charts.length > 0;
	for (const c of charts) {
		const box = await c.boundingBox();
		visible = visible && box !== null && box.width > 100 && box.height > 20;
	}
	let sorted = null;
	if (js !== 'off' && await page.locator('table.advice th').count() > 3) {
		await page.locator('table.advice th').nth(3).click();
		const v = (await attrs('table.advice tbody tr td:nth-child(4)', 'data-v')).map(Number);
		sorted = v.every((x, i) => i === 0 || v[i - 1] <= x);
	}
	const facts = {
		loadMs, errors, dialogs,
		otherRequests: requests.filter((r) => r !== url),
		// A page without a timeline (a survey's) answers at once, not after
		// getAttribute's 30 s wait for an element that never comes.
		timelineSteps: await page.locator('svg.timeline').count()
			? Number(await page.locator('svg.timeline').getAttribute('data-steps')) : -1,
		timelineBars: await page.locator('svg.timeline rect.step').count(),
		aggregated: await page.locator('svg.timeline rect.agg').count(),
		critical: await page.locator('svg.timeline rect.crit').count(),
		passGroups: groups,
		lineGroups: await attrs('svg.lines g.tu', 'data-tu'),
		fixes: await attrs('table.advice tr.fix', 'data-fix'),
		planSteps: await page.locator('svg.plan g.plan-step').count(),
		jobsPoints: await page.locator('svg.jobs circle.point').count(),
		chartsVisible: visible,
		sorted,
		scripts: await page.locator('script').count(),
		modules: await page.locator('table.modules tr.module td:first-child').allInnerTexts(),
		wallBars: await page.locator('svg.walls g.module').count(),
		sharedSources: await page.locator('table.shared tr.source code').allInnerTexts(),
		text: await page.locator('body').innerText(),
	};
	await page.screenshot({ path: screenshot, fullPage: true });
	process.stdout.write(JSON.stringify(facts) + '\n');
} finally {
	await browser.close();
}
