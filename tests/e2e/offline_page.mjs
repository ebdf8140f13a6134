// One report page opened as a reader's browser would open a file it was sent, with every
// other request refused: shared by html_report.mjs and conversation_view.mjs.
//
// `r` collects what the page did that it should not: console errors and warnings
// (`r.console`), uncaught errors (`r.pageErrors`) and each request it tried (`r.requests`).
// Resolves when the page says it is ready (`body[data-ready=true]`), with the milliseconds
// that took.
export async function openOffline(context, page, file, r, { readyTimeout = 20000 } = {}) {
  const url = "file://" + file;
  page.on("console", (m) => { if (m.type() === "error" || m.type() === "warning") r.console.push(`${m.type()}: ${m.text()}`); });
  page.on("pageerror", (e) => r.pageErrors.push(String(e)));
  await context.route("**/*", (route) => {
    const u = route.request().url();
    if (u === url) return route.continue();
    r.requests.push(u);
    return route.abort();
  });
  const t0 = Date.now();
  await page.goto(url, { waitUntil: "load" });
  await page.waitForSelector("body[data-ready=true]", { timeout: readyTimeout });
  return Date.now() - t0;
}
