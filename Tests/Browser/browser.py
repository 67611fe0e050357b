"""Shared set-up for the browser tests: headless Chromium (Debian's chromium and chromedriver)
through Selenium, the gateway's address, screenshots and downloads."""
import os
import pathlib
import re
import shutil
import tempfile
import time

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

BASE_URL = os.environ.get("GATEWAY_URL", "http://127.0.0.1:8080").rstrip("/")
SCREENSHOTS = pathlib.Path(os.environ.get("SCREENSHOT_DIR", "artifacts/screenshots"))
WAIT_SECONDS = float(os.environ.get("BROWSER_WAIT_SECONDS", "20"))
# The gateway's log (scripts/check-browser.sh sends the server's output there); None when the
# tests run against a server whose log they can't read.
GATEWAY_LOG = pathlib.Path(os.environ["GATEWAY_LOG"]) if os.environ.get("GATEWAY_LOG") else None

# What the demo's log mailer writes for a confirmation mail (LogEmailSender in Sources/Push):
# `... notice campus-gateway: channel=email code=493027 device=42 domain=example.edu link=... [Push]
# mail (log mailer, not sent): confirmation`, metadata sorted by key.
CONFIRMATION_LINE = "mail (log mailer, not sent): confirmation"
# The log SMS sender's line for a confirmation text (the demo without a provider).
SMS_CONFIRMATION_LINE = "text (log sender, not sent): confirmation"


def confirmation_codes(device_id):
    """Every confirmation code the log mailer or the log SMS sender logged for this device, oldest first."""
    if GATEWAY_LOG is None or not GATEWAY_LOG.exists():
        return []
    codes = []
    with open(GATEWAY_LOG, encoding="utf-8", errors="replace") as log:
        for line in log:
            if (CONFIRMATION_LINE not in line and SMS_CONFIRMATION_LINE not in line) or not re.search(rf"\sdevice={int(device_id)}\s", line):
                continue
            code = re.search(r"\scode=(\d+)\s", line)
            if code:
                codes.append(code.group(1))
    return codes


def wait_for_confirmation_codes(device_id, count, timeout=None):
    """Waits until the log holds `count` confirmation codes for the device (the mail is a job:
    it goes a moment after the request, and the log is written every 100 ms); answers them."""
    deadline = time.monotonic() + (timeout or WAIT_SECONDS)
    while True:
        codes = confirmation_codes(device_id)
        if len(codes) >= count:
            return codes
        if time.monotonic() > deadline:
            raise AssertionError(f"{len(codes)} of {count} confirmation mails for device {device_id} in {GATEWAY_LOG}")
        time.sleep(0.2)


def find_binary(*names):
    for name in names:
        path = shutil.which(name)
        if path:
            return path
    for path in ("/usr/bin/chromium", "/usr/lib/chromium/chromium"):
        if os.path.exists(path):
            return path
    return None


class Browser:
    """One headless Chromium with its own download folder."""

    def __init__(self, width=1280, height=1000):
        self.downloads = pathlib.Path(tempfile.mkdtemp(prefix="gateway-downloads-"))
        options = webdriver.ChromeOptions()
        binary = find_binary("chromium", "chromium-browser")
        if binary:
            options.binary_location = binary
        for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                    f"--window-size={width},{height}", "--lang=en-US", "--no-first-run",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync"):
            options.add_argument(arg)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        options.add_experimental_option("prefs", {
            "download.default_directory": str(self.downloads),
            "download.prompt_for_download": False,
            "safebrowsing.enabled": False,
        })
        driver_path = shutil.which("chromedriver") or "/usr/bin/chromedriver"
        self.driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
        self.driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(self.downloads)})
        self.wait = WebDriverWait(self.driver, WAIT_SECONDS)

    def quit(self):
        try:
            self.driver.quit()
        finally:
            shutil.rmtree(self.downloads, ignore_errors=True)

    def open(self, path):
        self.driver.get(BASE_URL + path)

    def css(self, selector):
        return self.driver.find_element(By.CSS_SELECTOR, selector)

    def all(self, selector):
        return self.driver.find_elements(By.CSS_SELECTOR, selector)

    def texts(self, selector):
        """The text of every element matching `selector`, read at one instant (no stale elements
        while a view re-renders)."""
        return self.driver.execute_script(
            "return [...document.querySelectorAll(arguments[0])].map((e) => e.textContent.trim())", selector)

    def visible(self, selector, root=None):
        return self.wait.until(EC.visibility_of_element_located((By.CSS_SELECTOR, selector)))

    def clickable(self, selector):
        return self.wait.until(EC.element_to_be_clickable((By.CSS_SELECTOR, selector)))

    def xpath(self, expression):
        return self.wait.until(EC.visibility_of_element_located((By.XPATH, expression)))

    def text_in(self, selector, text):
        self.wait.until(EC.text_to_be_present_in_element((By.CSS_SELECTOR, selector), text))
        return self.css(selector)

    def until(self, condition, message="condition", timeout=None):
        return WebDriverWait(self.driver, timeout or WAIT_SECONDS).until(lambda _: condition(), message)

    def fill(self, element, value):
        element.clear()
        element.send_keys(value)

    def click(self, element):
        """Clicks after scrolling the element to the middle of the viewport (sticky headers)."""
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", element)
        element.click()

    def click_css(self, selector, attempts=5):
        """Clicks what `selector` names, finding it again when a refresh (the console's, every
        5 s) replaced it between finding and clicking."""
        for attempt in range(attempts):
            try:
                return self.click(self.clickable(selector))
            except StaleElementReferenceException:
                if attempt == attempts - 1:
                    raise

    def screenshot(self, name):
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        # Passing toasts would hide part of the page.
        self.driver.execute_script("document.querySelectorAll('.toast').forEach((t) => t.classList.remove('visible'))")
        time.sleep(0.3)
        path = SCREENSHOTS / f"{name}.png"
        self.driver.save_screenshot(str(path))
        return path

    def full_screenshot(self, name, max_height=2400):
        """The whole page (up to max_height pixels) by resizing the window to the document."""
        width = self.driver.execute_script("return window.outerWidth")
        height = self.driver.execute_script("return Math.min(document.documentElement.scrollHeight, arguments[0])", max_height)
        original = self.driver.get_window_size()
        self.driver.set_window_size(width, max(original["height"], height + 120))
        time.sleep(0.2)
        try:
            return self.screenshot(name)
        finally:
            self.driver.set_window_size(original["width"], original["height"])

    def download(self, suffix, timeout=None):
        """Waits for a finished download whose name ends with `suffix` and answers its path."""
        def done():
            files = [p for p in self.downloads.iterdir() if p.name.endswith(suffix)]
            return files[0] if files else None
        return self.until(done, f"a {suffix} download", timeout)

    def console_errors(self):
        """Severe console entries other than the network errors of refused API calls (4xx)."""
        entries = self.driver.get_log("browser")
        errors = []
        for entry in entries:
            if entry.get("level") != "SEVERE":
                continue
            message = entry.get("message", "")
            if "Failed to load resource" in message and any(f"status of {code}" in message for code in range(400, 500)):
                continue
            errors.append(message)
        return errors


__all__ = ["Browser", "BASE_URL", "By", "GATEWAY_LOG", "TimeoutException", "confirmation_codes", "wait_for_confirmation_codes"]


UNLABELLED_CONTROLS = """
return [...document.querySelectorAll('input, select, textarea, button')]
  .filter((el) => el.type !== 'hidden' && el.offsetParent !== null)
  .filter((el) => !(el.labels && el.labels.length) && !el.getAttribute('aria-label') && !el.getAttribute('aria-labelledby')
    && !(el.tagName === 'BUTTON' && el.textContent.trim()))
  .map((el) => el.outerHTML.slice(0, 120));
"""


def unlabelled_controls(browser):
    """Visible form controls and buttons a screen reader could not name."""
    return browser.driver.execute_script(UNLABELLED_CONTROLS)
