"""Campus sign-in (OpenID Connect) in headless Chromium, through the real pages: the student
app and the operator console of a gateway configured with the stand-in provider
(Tests/Browser/oidc_provider.py) sign people in through the provider's page and back; a
refusal, a non-admin at the console and a callback replayed in another browser end signed out
with a message; a gateway without a provider shows no campus button.

scripts/check-browser.sh starts the second gateway and the provider and passes
CAMPUS_GATEWAY_URL and OIDC_PROVIDER_URL; without them only the last check runs."""
import http.client
import json
import os
import time
import unittest
import urllib.parse
import urllib.request

from browser import BASE_URL, SCREENSHOTS, Browser, By, TimeoutException
from oidc_provider import ProviderControl

CAMPUS_URL = (os.environ.get("CAMPUS_GATEWAY_URL") or "").rstrip("/")
PROVIDER_URL = (os.environ.get("OIDC_PROVIDER_URL") or "").rstrip("/")
ADMIN_GROUP = os.environ.get("CAMPUS_ADMIN_GROUP", "gateway-admins")
DISPLAY_NAME = os.environ.get("CAMPUS_DISPLAY_NAME", "Sign in with Campus ID")

REFUSED = "Your campus sign-in was refused."
UNFINISHED = "That sign-in could not be finished"


def console_sign_in_form(b):
    """The operator console's sign-in form; when it never comes, the failure carries the page's
    JavaScript errors (a console that stops at "Loading…" says nothing else)."""
    try:
        return b.visible("#signin-form")
    except TimeoutException:
        raise AssertionError(f"the console showed no sign-in form; JavaScript errors: {b.console_errors()}") from None


def get_json(url):
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())


@unittest.skipUnless(CAMPUS_URL and PROVIDER_URL, "needs CAMPUS_GATEWAY_URL and OIDC_PROVIDER_URL (scripts/check-browser.sh)")
class CampusSignInTests(unittest.TestCase):
    """Each test in a fresh Chromium: the session lives in the tab's sessionStorage."""

    def setUp(self):
        self.provider = ProviderControl(PROVIDER_URL)
        self.b = Browser()

    def tearDown(self):
        self.b.quit()

    # Helpers

    def open(self, path):
        self.b.driver.get(CAMPUS_URL + path)

    def url(self):
        return self.b.driver.current_url

    def snapshot(self, name):
        """A screenshot that keeps the toast (Browser.screenshot hides it)."""
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        self.b.driver.save_screenshot(str(SCREENSHOTS / f"{name}.png"))

    def campus_button(self, scope="body"):
        button = self.b.visible(f"{scope} #campus-signin")
        self.assertEqual(button.text.strip(), DISPLAY_NAME)
        return button

    def at_provider(self, name):
        """Waits for the provider's page and checks whom it signs in."""
        who = self.b.visible("#who")
        self.assertTrue(self.url().startswith(PROVIDER_URL + "/authorize?"), self.url())
        self.assertEqual(who.text, f"Sign in as {name}")
        return who

    def signed_in_as(self):
        """The username the account menu shows, or None."""
        names = self.b.texts("#account .who strong")
        return names[0] if names else None

    def session_token(self):
        return self.b.driver.execute_script(
            "const v = JSON.parse(sessionStorage.getItem('campus-gateway.session') || 'null'); return v && v.token;")

    def me(self, token):
        request = urllib.request.Request(CAMPUS_URL + "/v1/me", headers={"Authorization": f"Bearer {token}"})
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())

    def assertFragmentGone(self):
        url = self.url()
        self.assertNotIn("signin=", url)
        self.assertNotIn("signin-error=", url)

    # (a) the student app

    def test_a_student_signs_in_through_the_provider_and_lands_on_next(self):
        b = self.b
        self.provider.next_person("campus-ada", "ada.lovelace", groups=["students"], name="Ada Lovelace")
        before = self.provider.state()["tokensIssued"]
        # Grades needs an account: the app shows the sign-in view with next=grades.
        self.open("/#/grades")
        button = self.campus_button(".card.campus")
        href = urllib.parse.urlsplit(button.get_attribute("href"))
        self.assertEqual(href.path, "/v1/auth/oidc/start")
        self.assertEqual(urllib.parse.parse_qs(href.query)["returnTo"], ["/?next=grades"])
        self.assertIsNone(self.signed_in_as())
        b.screenshot("40-campus-signin-button")

        b.click(button)
        self.at_provider("Ada Lovelace")
        b.screenshot("41-campus-provider-page")
        b.click(b.clickable("#approve"))

        b.until(lambda: self.signed_in_as() == "ada.lovelace", "signed in as ada.lovelace")
        b.text_in("#toast", "Welcome, ada.lovelace.")
        b.until(lambda: urllib.parse.urlsplit(self.url()).fragment == "/grades", "the grades view's address")
        self.assertFragmentGone()
        parts = urllib.parse.urlsplit(self.url())
        self.assertEqual((parts.netloc, parts.path, parts.query), (urllib.parse.urlsplit(CAMPUS_URL).netloc, "/", ""))
        # The view named by next, not the sign-in form.
        b.text_in("#main h1", "Grades")
        self.assertEqual(b.texts("#nav a[aria-current=page]"), ["Grades"])
        self.assertEqual(b.all("#signin-form"), [])
        b.until(lambda: b.driver.title == "Grades · Campus Gateway", "the grades title")
        self.snapshot("42-campus-signed-in")

        # The provider issued one ID token, and the session is a gateway token of a student.
        self.assertEqual(self.provider.state()["tokensIssued"], before + 1)
        me = self.me(self.session_token())
        self.assertEqual((me["username"], me["role"]), ("ada.lovelace", "student"))
        self.assertEqual(b.console_errors(), [])

    def test_b_a_refusal_shows_the_message_and_stays_signed_out(self):
        b = self.b
        self.provider.refuse_next()
        self.open("/#/signin")
        b.click(self.campus_button())
        # The provider answers access_denied at once; the gateway sends the browser home with
        # #signin-error=provider-refused.
        toast = b.text_in("#toast", REFUSED)
        self.assertIn("error=access_denied", self.provider.state()["lastRedirect"])
        b.until(lambda: urllib.parse.urlsplit(self.url()).fragment == "/signin", "the sign-in view's address")
        self.assertFragmentGone()
        b.visible("#signin-form")
        self.campus_button()
        self.assertIsNone(self.signed_in_as())
        self.assertEqual(b.texts("#account a"), ["Sign in"])
        self.assertIsNone(self.session_token())
        self.assertIn(REFUSED, toast.text)
        self.snapshot("43-campus-signin-refused")
        self.assertEqual(b.console_errors(), [])

    def test_c_cancel_at_the_provider_is_a_refusal_too(self):
        b = self.b
        self.provider.next_person("campus-cancel", "changed.mind", name="Changed Mind")
        self.open("/#/signin")
        b.click(self.campus_button())
        self.at_provider("Changed Mind")
        b.click(b.clickable("#deny"))
        b.text_in("#toast", REFUSED)
        self.assertFragmentGone()
        self.assertIsNone(self.signed_in_as())
        self.assertIsNone(self.session_token())

    def test_d_a_callback_replayed_in_another_browser_is_refused(self):
        """The provider's answer carried to another browser (a stolen callback URL) fails, and
        so does the original browser afterwards: the flow is bound to the browser that started
        it and is used up by the first callback."""
        b = self.b
        self.provider.next_person("campus-eve", "eve.victim", name="Eve Victim")
        self.open("/#/signin")
        b.click(self.campus_button())
        self.at_provider("Eve Victim")
        # Approve outside the browser, as if the redirect were intercepted.
        request_id = b.css("input[name=request]").get_attribute("value")
        provider = urllib.parse.urlsplit(PROVIDER_URL)
        connection = http.client.HTTPConnection(provider.hostname, provider.port, timeout=10)
        connection.request("POST", "/authorize/decision", urllib.parse.urlencode({"request": request_id, "decision": "approve"}),
                           {"Content-Type": "application/x-www-form-urlencoded"})
        response = connection.getresponse()
        response.read()
        self.assertEqual(response.status, 302)
        callback = response.getheader("Location")
        self.assertTrue(callback.startswith(CAMPUS_URL + "/v1/auth/oidc/callback?code="), callback)

        other = Browser()
        try:
            other.driver.get(callback)
            other.text_in("#toast", UNFINISHED)
            self.assertNotIn("signin-error=", other.driver.current_url)
            self.assertNotIn("signin=", other.driver.current_url)
            self.assertEqual(other.texts("#account .who strong"), [])
            other.visible("#signin-form")
        finally:
            other.quit()

        # The browser that started the flow can't finish it any more either.
        b.driver.get(callback)
        b.text_in("#toast", UNFINISHED)
        self.assertFragmentGone()
        self.assertIsNone(self.signed_in_as())
        self.assertIsNone(self.session_token())

    # (c) the operator console

    def test_e_an_admin_group_member_signs_in_to_the_console(self):
        b = self.b
        self.provider.next_person("campus-grace", "grace.hopper", groups=["staff", ADMIN_GROUP], name="Grace Hopper")
        self.open("/admin/")
        console_sign_in_form(b)
        button = self.campus_button("#campus-slot")
        self.assertEqual(urllib.parse.parse_qs(urllib.parse.urlsplit(button.get_attribute("href")).query)["returnTo"], ["/admin/"])
        b.screenshot("44-campus-console-signin")
        b.click(button)
        self.at_provider("Grace Hopper")
        b.click(b.clickable("#approve"))

        b.visible("#queues table")
        b.until(lambda: self.signed_in_as() == "grace.hopper", "signed in as grace.hopper")
        self.assertFragmentGone()
        self.assertEqual(self.url(), CAMPUS_URL + "/admin/")
        self.assertEqual(b.all("#refusal"), [])
        self.assertEqual(b.all("#signin-form"), [])
        self.assertEqual(self.me(self.session_token())["role"], "admin")
        b.screenshot("45-campus-console-admin")
        self.assertEqual(b.console_errors(), [])

    def test_f_a_person_outside_the_admin_group_is_refused_until_added(self):
        b = self.b
        self.provider.next_person("campus-alan", "alan.turing", groups=["students"], name="Alan Turing")
        self.open("/admin/")
        console_sign_in_form(b)
        b.click(self.campus_button("#campus-slot"))
        self.at_provider("Alan Turing")
        b.click(b.clickable("#approve"))

        refusal = b.visible("#refusal")
        self.assertIn("Administrators and operators only", refusal.text)
        self.assertIn("You are signed in as alan.turing, a student.", refusal.text)
        self.assertFragmentGone()
        self.assertEqual(b.all("#queues"), [])
        b.screenshot("46-campus-console-refused")

        # Added to the admin group at the provider, the same person is an admin at the next sign-in.
        self.provider.next_person("campus-alan", "alan.turing", groups=["students", ADMIN_GROUP], name="Alan Turing")
        b.click(refusal.find_element(By.XPATH, ".//button[contains(., 'Sign in as someone else')]"))
        b.visible("#signin-form")
        b.click(self.campus_button("#campus-slot"))
        self.at_provider("Alan Turing")
        b.click(b.clickable("#approve"))
        b.visible("#queues table")
        b.until(lambda: self.signed_in_as() == "alan.turing", "signed in as alan.turing")
        self.assertEqual(self.me(self.session_token())["role"], "admin")
        self.assertEqual(b.console_errors(), [])


class NoProviderTests(unittest.TestCase):
    """(d) The first gateway has no provider: its pages show no campus button."""

    @classmethod
    def setUpClass(cls):
        cls.b = Browser()

    @classmethod
    def tearDownClass(cls):
        cls.b.quit()

    def test_no_campus_button_without_a_provider(self):
        b = self.b
        self.assertFalse(get_json(BASE_URL + "/v1/auth/oidc")["enabled"])
        if CAMPUS_URL:
            # The same check would see the button on the gateway that has one.
            self.assertTrue(get_json(CAMPUS_URL + "/v1/auth/oidc")["enabled"])

        b.open("/#/signin")
        b.visible("#signin-form")  # rendered after the offer was read
        self.assertEqual(b.all("#campus-signin"), [])
        self.assertEqual(b.all(".card.campus"), [])

        b.open("/admin/")
        console_sign_in_form(b)
        # The console asks for the offer after drawing the form: wait for that answer.
        b.until(lambda: b.driver.execute_script(
            "return performance.getEntriesByType('resource').some((e) => e.name.endsWith('/v1/auth/oidc') && e.responseEnd > 0)"),
            "the console read /v1/auth/oidc")
        time.sleep(0.3)
        self.assertEqual(b.all("#campus-signin"), [])
        self.assertEqual(b.texts("#campus-slot"), [""])
        b.screenshot("47-no-campus-button")


if __name__ == "__main__":
    unittest.main()
