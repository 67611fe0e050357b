"""axe-core on the page a Browser shows: the WCAG 2.0 and 2.1 level A and AA rules, failing on
every serious or critical violation. The axe-core script comes from the axe-selenium-python
package (scripts/install-deps.sh --browser): it is injected into the page through WebDriver,
which the pages' Content-Security-Policy does not govern, and nothing is fetched from the
network."""
import json
import os

from axe_selenium_python import Axe

# The rule tags of WCAG 2.1 AA (which includes WCAG 2.0 A and AA and 2.1 A).
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
FAILING_IMPACTS = ("serious", "critical")
AXE_OPTIONS = {"runOnly": {"type": "tag", "values": WCAG_TAGS}, "resultTypes": ["violations"]}
# A trace of what was checked where (one line per run), for docs and for reading a failure.
LOG = os.environ.get("AXE_LOG")


def axe_violations(browser):
    """axe's violations on the current page (every impact), WCAG 2.1 A and AA rules only."""
    driver = browser.driver
    if not driver.execute_script("return typeof window.axe === 'object' && typeof window.axe.run === 'function'"):
        Axe(driver).inject()
    driver.set_script_timeout(60)
    settle_transitions(driver)
    result = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "window.axe.run(document, arguments[0]).then((r) => done({violations: r.violations}),"
        " (e) => done({error: String(e)}));", AXE_OPTIONS)
    if result.get("error"):
        raise AssertionError(f"axe did not run: {result['error']}")
    return result["violations"]


def settle_transitions(driver, seconds=5):
    """Waits until no finite CSS transition or animation is running. A toast fading in or out
    is part-transparent for 0.2 s, and axe measures the colours it sees at that moment: the
    contrast it would report is the fade's, not the page's (a failure seen on CI, #toast at
    2.59:1 mid-fade). Infinite animations are left running; there are none today."""
    settled = driver.execute_async_script(
        "const [limit, done] = arguments;"
        "const deadline = performance.now() + limit * 1000;"
        "const running = () => document.getAnimations().filter((a) => a.playState === 'running'"
        " && (a.effect?.getTiming().iterations ?? 1) !== Infinity);"
        "const wait = () => { const left = running();"
        " if (left.length === 0) return done(true);"
        " if (performance.now() > deadline) return done(false);"
        " const timeout = new Promise((r) => setTimeout(r, Math.max(0, deadline - performance.now()) + 1));"
        " Promise.race([Promise.all(left.map((a) => a.finished.catch(() => null))), timeout])"
        ".then(() => setTimeout(wait, 20)); };"
        "wait();", seconds)
    if not settled:
        raise AssertionError(f"a CSS transition still ran after {seconds} s; axe would measure it mid-way")


def serious_violations(violations):
    return [v for v in violations if v.get("impact") in FAILING_IMPACTS]


def describe(violations):
    """One block per violation: rule id, impact, help, its URL, and each target's selector."""
    lines = []
    for v in violations:
        lines.append(f"- {v['id']} ({v.get('impact')}): {v.get('help')} [{v.get('helpUrl', '')}]")
        for node in v.get("nodes", []):
            target = " >> ".join(json.dumps(t) if not isinstance(t, str) else t for t in node.get("target", []))
            summary = (node.get("failureSummary") or "").replace("\n", " ")
            lines.append(f"    {target}: {summary[:300]}")
    return "\n".join(lines)


def check_accessibility(test, browser, name):
    """Runs axe on what `browser` shows and fails `test` listing every serious or critical
    violation; answers the minor and moderate ones (not failures) for whoever wants them."""
    violations = axe_violations(browser)
    failing = serious_violations(violations)
    if LOG:
        with open(LOG, "a", encoding="utf-8") as log:
            width = browser.driver.execute_script("return window.innerWidth")
            found = ", ".join(f"{v['id']}:{v.get('impact')}" for v in violations) or "none"
            log.write(f"{name} @{width}px {browser.driver.current_url}: {found}\n")
    if failing:
        test.fail(f"axe: {len(failing)} serious or critical WCAG 2.1 A/AA violation(s) on {name} "
                  f"({browser.driver.current_url}):\n{describe(failing)}")
    return [v for v in violations if v not in failing]
