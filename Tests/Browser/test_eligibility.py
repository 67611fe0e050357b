"""Registration eligibility in headless Chromium against the demo: a refusal shows every reason
(the demo student and CS 596, class 7055: prerequisite and restriction; the classmate's bursar
hold on adds), the catalog's dry run says the same without changing anything, My classes shows
each term's eligibility (window, standing, units against the limit, holds), a registered class
is swapped for another in one step (a refused swap keeps the class and shows its reasons), a
waitlist place says which class it drops when its seat comes, the builder's "Only classes I can take" is there only when signed in and lists the classes it left
out, and the operator console's eligibility panel edits a fresh student's record, holds and
overrides and reads the term's windows, a course's requirements and the prerequisite
exceptions.

The demo student's registrations are undone after each test (CS 100's sections 7000 and 7001
are the only classes it takes, and it leaves CS 540-01's waitlist again); the console edits only a student made for the test and a
course that no class has."""
import json
import random
import unittest

import test_student_features as features
from accessibility import check_accessibility
from browser import Browser, By, unlabelled_controls

STUDENT = ("student", "demo-student-pass")
CLASSMATE = ("classmate", "demo-classmate-pass")
ADMIN = ("admin", "demo-admin-pass")
TERM = "2018-fall"
CS596 = 7055
CS100 = (7000, 7001)


def registered(token):
    """The class ids the account is registered for."""
    status, schedule = features.api("GET", "/v1/me/registration", token=token)
    assert status == 200, schedule
    return sorted(e["classId"] for e in schedule["enrollments"])


def drop_all(token, class_ids):
    for class_id in class_ids:
        features.api("DELETE", f"/v1/me/registration/enrollments/{class_id}", token=token)


# Records the schedule builder's requests (and whether they carried a token); the real gateway
# answers them, and an "only classes I can take" build's answer lists class 7055 as left out, so
# that the page's list is checked on the same data whatever the demo's eligibility decides.
BUILD_STAND_IN = """
window.buildRequests = [];
const realFetch = window.fetch.bind(window);
window.fetch = async (input, init) => {
  const url = new URL(typeof input === 'string' ? input : input.url, window.location.origin);
  if (url.pathname !== '/v1/scheduling/builds' || !init || init.method !== 'POST') return realFetch(input, init);
  const body = JSON.parse(init.body);
  window.buildRequests.push({ body, authorized: Boolean(init.headers && init.headers.authorization) });
  const response = await realFetch(input, init);
  if (!response.ok || !body.eligibleOnly) return response;
  const build = await response.json();
  build.excluded = [{ classId: 7055, rules: ['prerequisite', 'restriction'] }];
  return new Response(JSON.stringify(build), { status: 200, headers: { 'content-type': 'application/json' } });
};
"""


class EligibilityTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.b = Browser(width=1280, height=1000)
        cls.student_token = features.sign_in_api(*STUDENT)

    @classmethod
    def tearDownClass(cls):
        cls.b.quit()
        drop_all(cls.student_token, CS100)

    # Helpers ---------------------------------------------------------------------------------

    def sign_in(self, account, then, heading):
        """Signs in through the app's form, which then shows the view `then`."""
        b = self.b
        username, password = account
        b.open("/#/catalog")
        b.text_in("main h1", "Catalog")
        if b.all("#sign-out"):
            b.click(b.css("#sign-out"))
            b.visible("#signin-form")
        b.open(f"/#/signin?next={then}")
        form = b.visible("#signin-form")
        b.fill(form.find_element(By.NAME, "username"), username)
        b.fill(form.find_element(By.NAME, "password"), password)
        form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        b.text_in("#account", username)
        b.text_in("main h1", heading)

    def rules_in(self, selector):
        """The rules of the reasons listed under `selector`, read at one instant."""
        return self.b.driver.execute_script(
            "return [...document.querySelectorAll(arguments[0] + ' ul.reasons > li')].map((li) => li.dataset.rule)", selector)

    def eligibility_card(self):
        return self.b.visible(f"section.eligibility[data-term='{TERM}']")

    def open_every_details(self):
        """Opens the disclosure widgets so that axe sees what they hold."""
        self.b.driver.execute_script("document.querySelectorAll('main details').forEach((d) => { d.open = true; })")

    def assertNoConsoleErrors(self):
        self.assertEqual(self.b.console_errors(), [])

    # The student app -------------------------------------------------------------------------

    def test_a_a_refusal_and_the_dry_run_show_every_reason(self):
        b = self.b
        self.assertNotIn(CS596, registered(self.student_token))
        self.sign_in(STUDENT, "catalog", "Catalog")
        b.open(f"/#/catalog?class={CS596}")
        card = f"#linked-class article[data-class-id='{CS596}']"
        b.visible(card)

        # The dry run: every reason, and nothing changed.
        b.click(b.css(f"{card} button[data-action=check]"))
        b.text_in(f"{card} .error-slot", "You cannot register for CS 596-01")
        rules = self.rules_in(f"{card} .error-slot")
        self.assertIn("prerequisite", rules)
        self.assertIn("restriction", rules)
        self.assertIn("only a check", b.css(f"{card} .error-slot").text)
        self.assertIn("CS 440", " ".join(b.texts(f"{card} .error-slot ul.reasons > li")))

        # Registering is refused with the same reasons, each on its own line.
        b.click(b.css(f"{card} button[data-action=register]"))
        b.text_in(f"{card} .error-slot", "Not eligible to register")
        rules = self.rules_in(f"{card} .error-slot")
        self.assertIn("prerequisite", rules)
        self.assertIn("restriction", rules)
        self.assertNotIn(CS596, registered(self.student_token))
        # A class the student may take: the dry run says so.
        b.open(f"/#/catalog?class={CS100[0]}")
        other = f"#linked-class article[data-class-id='{CS100[0]}']"
        b.click(b.visible(f"{other} button[data-action=check]"))
        self.assertIn("You can register for CS 100-01", b.text_in(f"{other} .note", "You can register").text)
        self.assertNotIn(CS100[0], registered(self.student_token))
        self.assertEqual(unlabelled_controls(b), [])
        self.assertNoConsoleErrors()

    def test_b_my_classes_show_each_terms_eligibility(self):
        b = self.b
        self.sign_in(STUDENT, "registration", "My classes")
        card = self.eligibility_card()
        self.assertIn("open", card.find_element(By.CSS_SELECTOR, ".eligibility-window").text)
        self.assertIn("your standing", card.find_element(By.CSS_SELECTOR, ".eligibility-window").text)
        self.assertIn("Junior", card.find_element(By.CSS_SELECTOR, ".eligibility-standing").text)
        self.assertIn("CS", card.find_element(By.CSS_SELECTOR, ".eligibility-standing").text)
        self.assertIn("of 18 allowed", card.find_element(By.CSS_SELECTOR, ".eligibility-units").text)
        self.assertIn("No hold", card.find_element(By.CSS_SELECTOR, ".eligibility-holds").text)

        # The classmate: the bursar's hold on adds, shown in My classes and on every refusal.
        self.sign_in(CLASSMATE, "registration", "My classes")
        hold = b.visible(f"section.eligibility[data-term='{TERM}'] .eligibility-holds li[data-code=BURSAR]")
        self.assertIn("Unpaid balance: pay at the Bursar's office", hold.text)
        self.assertIn("blocks adding classes", hold.text)
        self.assertIn("Freshman", self.eligibility_card().find_element(By.CSS_SELECTOR, ".eligibility-standing").text)
        self.open_every_details()
        check_accessibility(self, b, "my classes with a hold")
        b.open(f"/#/catalog?class={CS100[0]}")
        card = f"#linked-class article[data-class-id='{CS100[0]}']"
        b.click(b.visible(f"{card} button[data-action=register]"))
        b.text_in(f"{card} .error-slot", "Not eligible to register")
        self.assertEqual(self.rules_in(f"{card} .error-slot"), ["hold"])
        self.assertIn("BURSAR", b.css(f"{card} .error-slot ul.reasons").text)
        check_accessibility(self, b, "catalog: a refusal with its reasons")
        self.assertNoConsoleErrors()

    def test_c_a_registered_class_is_swapped_for_another(self):
        b = self.b
        first, second = CS100
        drop_all(self.student_token, CS100)
        status, body = features.api("POST", "/v1/me/registration/enrollments", {"classId": first}, self.student_token)
        self.assertEqual(status, 201, body)
        try:
            self.sign_in(STUDENT, "registration", "My classes")
            self.assertIn("3 registered", self.eligibility_card().find_element(By.CSS_SELECTOR, ".eligibility-units").text)
            entry = f"#enrollments > li[data-class-id='{first}']"
            b.click(b.visible(f"{entry} details.swap > summary"))
            form = b.visible(f"{entry} form.swap-form")
            # A class the student may not take: refused with every reason, the class kept.
            b.fill(form.find_element(By.NAME, "add"), str(CS596))
            b.click(form.find_element(By.CSS_SELECTOR, "button[type=submit]"))
            b.text_in(f"{entry} > .error-slot", "Not eligible to register")
            rules = self.rules_in(f"{entry} > .error-slot")
            self.assertIn("prerequisite", rules)
            self.assertIn("restriction", rules)
            self.assertEqual(registered(self.student_token), [first])
            self.assertEqual(unlabelled_controls(b), [])
            b.full_screenshot("03c-swap-refused")

            # The other section of CS 100: swapped in one step.
            b.fill(form.find_element(By.NAME, "add"), str(second))
            b.click(form.find_element(By.CSS_SELECTOR, "button[type=submit]"))
            b.visible(f"#enrollments > li[data-class-id='{second}']")
            b.until(lambda: not b.all(f"#enrollments > li[data-class-id='{first}']"), "the first section gone")
            self.assertEqual(registered(self.student_token), [second])
            self.assertNoConsoleErrors()
        finally:
            drop_all(self.student_token, CS100)

    def test_c2_a_waitlist_place_says_which_class_it_drops(self):
        """A place on CS 540-01's waitlist (class 7036, full in the demo) that drops CS 100-01
        when the seat comes: My classes says so. The place is left again afterwards (the student
        journey expects to be first in that line)."""
        b = self.b
        first = CS100[0]
        drop_all(self.student_token, CS100)
        status, body = features.api("POST", "/v1/me/registration/enrollments", {"classId": first}, self.student_token)
        self.assertEqual(status, 201, body)
        try:
            status, place = features.api("POST", "/v1/me/registration/waitlist", {"classId": 7036, "dropIfEnrolled": first}, self.student_token)
            self.assertEqual(status, 201, place)
            self.sign_in(STUDENT, "registration", "My classes")
            note = b.visible("section[aria-labelledby=waitlist-title] li[data-class-id='7036'] .drop-if-enrolled")
            self.assertIn("CS 100-01", note.text)
            self.assertIn("dropped", note.text)
            self.assertNoConsoleErrors()
        finally:
            features.api("DELETE", "/v1/me/registration/waitlist/7036", token=self.student_token)
            drop_all(self.student_token, CS100)

    def test_d_the_builder_leaves_out_classes_the_student_cannot_take(self):
        b = self.b
        b.open("/#/catalog")
        b.text_in("main h1", "Catalog")
        if b.all("#sign-out"):
            b.click(b.css("#sign-out"))
            b.visible("#signin-form")
        b.open("/#/builder")
        b.visible("#builder-form")
        self.assertEqual(b.all("#builder-eligible-only"), [], "signed out, the builder has no eligibility option")

        self.sign_in(STUDENT, "builder", "Schedule builder")
        form = b.visible("#builder-form")
        # Start from an empty request (each Remove draws its list again).
        for _ in range(30):
            removes = b.all("#builder-courses button, #builder-pinned button, #builder-excluded button")
            if not removes:
                break
            b.click(removes[0])
        b.fill(form.find_element(By.NAME, "courses"), "CS 100")
        b.click(b.css("#add-course"))
        b.driver.execute_script(BUILD_STAND_IN)
        eligible_only = b.visible("#builder-eligible-only")
        if not eligible_only.is_selected():
            b.click(eligible_only)
        b.click(b.css("#build-submit"))
        excluded = b.text_in("#build-excluded", "Class 7055")
        self.assertIn("prerequisite, restriction", excluded.text)
        requests = b.driver.execute_script("return window.buildRequests")
        self.assertEqual(len(requests), 1)
        self.assertTrue(requests[0]["body"].get("eligibleOnly"))
        self.assertTrue(requests[0]["authorized"], "an eligibility build carries the session's token")
        self.assertEqual(unlabelled_controls(b), [])

        # Unticked: a plain build, anonymous as before, with no list of left-out classes.
        b.click(eligible_only)
        b.click(b.css("#build-submit"))
        b.until(lambda: len(b.driver.execute_script("return window.buildRequests")) == 2, "the second build")
        b.until(lambda: not b.all("#build-excluded"), "no left-out list")
        second = b.driver.execute_script("return window.buildRequests")[1]
        self.assertNotIn("eligibleOnly", second["body"])
        self.assertFalse(second["authorized"])
        self.assertNoConsoleErrors()

    # The operator console --------------------------------------------------------------------

    def console_sign_in(self):
        b = self.b
        b.open("/admin/")
        b.visible("#signin-form, #sign-out")
        if b.all("#sign-out"):
            b.click(b.clickable("#sign-out"))
        form = b.visible("#signin-form")
        b.fill(form.find_element(By.NAME, "username"), ADMIN[0])
        b.fill(form.find_element(By.NAME, "password"), ADMIN[1])
        form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        b.visible("#eligibility #elig-student-form")
        auto = b.css("#auto-refresh")
        if auto.is_selected():
            b.click(auto)

    def test_e_the_console_edits_a_students_eligibility(self):
        b = self.b
        # A profile: the dry run (like registering) needs one.
        _, token = features.new_student("eligible")
        status, me = features.api("GET", "/v1/me", token=token)
        self.assertEqual(status, 200, me)
        account_id = me["id"]
        self.console_sign_in()

        chooser = b.css("#elig-student-form")
        b.fill(chooser.find_element(By.NAME, "accountId"), str(account_id))
        b.click(chooser.find_element(By.CSS_SELECTOR, "button[type=submit]"))
        b.text_in("#elig-student-name", f"Account {account_id}")
        self.assertIn("No academic record yet", b.css("#elig-record-meta").text)
        self.assertIn("No hold", b.css("#elig-holds").text)

        # The record: a senior in CS with CS 440 passed.
        record = b.css("#elig-record-form")
        record.find_element(By.CSS_SELECTOR, "select[name=standing] option[value=senior]").click()
        b.fill(record.find_element(By.NAME, "majors"), "CS")
        history = record.find_element(By.NAME, "history")
        b.fill(history, "[{")
        b.click(record.find_element(By.CSS_SELECTOR, "button[type=submit]"))
        b.text_in("#elig-record-form .problem", "Not valid JSON")
        self.assertEqual(history.get_attribute("aria-invalid"), "true")
        b.fill(history, json.dumps([{"course": "CS 440", "term": "2018-spring", "grade": "B"}]))
        b.click(record.find_element(By.CSS_SELECTOR, "button[type=submit]"))
        b.text_in("#elig-record-meta", "Last changed by account")
        status, stored = features.api("GET", f"/v1/admin/registration/students/{account_id}/record", token=features.sign_in_api(*ADMIN))
        self.assertEqual(status, 200, stored)
        self.assertEqual((stored["standing"], stored["majors"]), ("senior", ["CS"]))
        self.assertEqual([c["course"] for c in stored["history"]], ["CS 440"])

        # A hold on adds and drops: the student sees it; lifted, it is gone.
        b.click(b.xpath("//details[contains(@class,'elig-add')]/summary[.='Place a hold']"))
        hold_form = b.visible("#elig-hold-form")
        b.fill(hold_form.find_element(By.NAME, "code"), "BROWSER")
        b.fill(hold_form.find_element(By.NAME, "reason"), "Browser test hold")
        b.click(hold_form.find_element(By.CSS_SELECTOR, "input[name=blocks][value=drop]"))
        b.click(hold_form.find_element(By.CSS_SELECTOR, "button[type=submit]"))
        hold = b.visible("#elig-holds li[data-code=BROWSER]")
        self.assertIn("Browser test hold", hold.text)
        _, status_now = features.api("GET", f"/v1/me/registration/eligibility?term={TERM}", token=token)
        self.assertEqual([(h["code"], sorted(h["blocks"])) for h in status_now["holds"]], [("BROWSER", ["add", "drop"])])

        # An override of the prerequisite for CS 596: the dry run no longer names it.
        b.click(b.xpath("//details[contains(@class,'elig-add')]/summary[.='Grant an override']"))
        override_form = b.visible("#elig-override-form")
        b.fill(override_form.find_element(By.NAME, "classId"), str(CS596))
        b.click(override_form.find_element(By.CSS_SELECTOR, "input[name=rules][value=prerequisite]"))
        b.click(override_form.find_element(By.CSS_SELECTOR, "button[type=submit]"))
        b.visible(f"#elig-overrides li[data-class-id='{CS596}']")
        _, check = features.api("POST", "/v1/me/registration/check", {"classIds": [CS596]}, token)
        rules = [r["rule"] for r in check["items"][0]["reasons"]]
        self.assertNotIn("prerequisite", rules)
        self.assertIn("hold", rules)
        self.assertEqual(unlabelled_controls(b), [])
        self.open_every_details()
        check_accessibility(self, b, "console: a student's eligibility")
        b.full_screenshot("13-admin-eligibility", max_height=3600)

        b.click_css("#elig-holds li[data-code=BROWSER] button[data-action=lift-hold]")
        b.until(lambda: not b.all("#elig-holds li[data-code=BROWSER]"), "the hold lifted")
        self.assertEqual(features.api("GET", f"/v1/me/registration/eligibility?term={TERM}", token=token)[1]["holds"], [])
        b.click_css(f"#elig-overrides li[data-class-id='{CS596}'] button[data-action=remove-override]")
        b.text_in("#elig-overrides", "No override")
        self.assertNoConsoleErrors()

    def test_f_the_console_reads_a_terms_windows_requirements_and_exceptions(self):
        b = self.b
        self.console_sign_in()
        term = b.css("#elig-term")
        b.until(lambda: term.get_attribute("value"), "a term chosen")
        b.fill(term, TERM)

        # The demo's windows: seniors, juniors, then everyone. Malformed JSON is not sent.
        b.click(b.css("#elig-windows-load"))
        b.text_in("#elig-windows-meta", "3 windows")
        windows = b.css("#elig-windows-form textarea[name=windows]")
        loaded = json.loads(windows.get_attribute("value"))
        self.assertEqual([w.get("standing") for w in loaded], ["senior", "junior", None])
        b.fill(windows, "[{")
        b.click(b.css("#elig-windows-save"))
        b.text_in("#elig-windows-form .problem", "Not valid JSON")
        self.assertEqual(windows.get_attribute("aria-invalid"), "true")
        _, stored = features.api("GET", f"/v1/admin/terms/{TERM}/registration-windows", token=features.sign_in_api(*ADMIN))
        self.assertEqual(len(stored["windows"]), 3, "the windows are unchanged")

        # CS 596's requirements, then a course of the test's own: saved and read back.
        form = b.css("#elig-req-form")
        course = form.find_element(By.NAME, "course")
        b.fill(course, "CS 596")
        b.click(b.css("#elig-req-load"))
        b.text_in("#elig-req-meta", "Prerequisites: CS 440 (C or better) and (MATH 245 or MATH 254)")
        self.assertIn("senior", form.find_element(By.NAME, "requirements").get_attribute("value"))
        mine = f"ZZB {random.randrange(100, 1000)}"
        b.fill(course, mine)
        b.fill(form.find_element(By.NAME, "requirements"), json.dumps({"corequisites": ["ZZB 1L"], "restrictions": {"standings": ["senior"]}}))
        b.click(b.css("#elig-req-save"))
        self.assertIn("Last changed by account", b.text_in("#elig-req-meta", f"{mine} in {TERM}").text)
        b.fill(form.find_element(By.NAME, "requirements"), "")
        b.click(b.css("#elig-req-load"))
        b.until(lambda: "ZZB 1L" in form.find_element(By.NAME, "requirements").get_attribute("value"), "the saved requirements read back")

        b.click(b.css("#elig-exceptions-show"))
        b.until(lambda: b.texts("#elig-exceptions")[0], "the exceptions listed")
        self.assertEqual(unlabelled_controls(b), [])
        self.assertNoConsoleErrors()


if __name__ == "__main__":
    unittest.main()
