"""The web app shows what the API does: a waitlist seat offered to a student and accepted in My
classes; a course watched for open seats from the catalog, with the notification categories;
a saved schedule's private calendar feed (create, fetch, revoke); the builder's pinned classes,
unit limits and its warning over the registration's class limit. The demo is set up through the
API (an admin adds a one-seat class; other students take and free its seat)."""
import json
import random
import unittest
import urllib.error
import urllib.request

from browser import BASE_URL, Browser, By, unlabelled_controls

PASSWORD = "a long browser password"


def api(method, path, body=None, token=None):
    """Calls the API; answers (status, parsed JSON or text)."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(BASE_URL + path, data=data, method=method)
    if data is not None:
        request.add_header("content-type", "application/json")
    if token:
        request.add_header("authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request) as response:
            status, raw, kind = response.status, response.read(), response.headers.get("content-type", "")
    except urllib.error.HTTPError as error:
        status, raw, kind = error.code, error.read(), error.headers.get("content-type", "")
    return status, (json.loads(raw) if "json" in kind and raw else raw.decode("utf-8", "replace"))


def sign_in_api(username, password):
    status, issued = api("POST", "/v1/auth/token", {"username": username, "password": password})
    assert status == 201, issued
    return issued["token"]


def new_student(prefix, profile=True):
    """A student made through the API, with a profile; answers (username, token)."""
    username = f"{prefix}-{random.randrange(10**6, 10**7)}"
    status, body = api("POST", "/v1/accounts", {"username": username, "password": PASSWORD, "email": f"{username}@example.edu"})
    assert status == 201, body
    token = sign_in_api(username, PASSWORD)
    if profile:
        status, body = api("PUT", "/v1/me/registration/profile", {
            "redId": str(random.randrange(10**8, 10**9)), "firstName": "Test", "lastName": prefix.title(),
            "email": f"{username}@example.edu"}, token)
        assert status == 200, body
    return username, token


class StudentFeatureTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.b = Browser()

    @classmethod
    def tearDownClass(cls):
        cls.b.quit()

    def sign_in(self, username, then, heading):
        """Signs in through the form, which then shows the view `then`; waits for its heading."""
        b = self.b
        if b.all("#sign-out"):
            b.click(b.css("#sign-out"))
            b.visible("#signin-form")
        b.open(f"/#/signin?next={then}")
        form = b.visible("#signin-form")
        b.fill(form.find_element(By.NAME, "username"), username)
        b.fill(form.find_element(By.NAME, "password"), PASSWORD)
        form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        b.text_in("#account", username)
        b.text_in("main h1", heading)

    def search_catalog(self, instructor, subject=""):
        """A catalog search by instructor (and subject), once the first page has rendered."""
        b = self.b
        b.text_in("#results-title", "Classes")
        form = b.visible("#catalog-filters")
        b.fill(form.find_element(By.NAME, "q"), "")
        form.find_element(By.CSS_SELECTOR, f"select[name=subject] option[value='{subject}']").click()
        b.fill(form.find_element(By.NAME, "instructor"), instructor)
        b.click(form.find_element(By.CSS_SELECTOR, "button[type=submit]"))

    def assertNoConsoleErrors(self):
        self.assertEqual(self.b.console_errors(), [])

    def test_a_waitlist_offer_is_accepted_in_my_classes(self):
        status, settings = api("GET", "/v1/registration/settings")
        self.assertEqual(status, 200, settings)
        if settings["waitlistPolicy"] != "offer":
            self.skipTest("needs a gateway serving with --waitlist-policy offer (scripts/check-browser.sh does)")
        b = self.b
        # An admin adds a one-seat class with an instructor nobody else has.
        admin = sign_in_api("admin", "demo-admin-pass")
        mark = random.randrange(10**4, 10**5)
        instructor = f"W. OFFER{mark}"
        status, created = api("POST", "/v1/admin/registration/classes", {
            "term": "2018-fall", "subject": "CS", "course": "540", "section": f"W{mark % 100:02d}",
            "scheduleNumber": str(50000 + mark % 40000), "seats": 1, "instructors": [instructor],
            "meetings": [{"days": "S", "start": "0800", "end": "0850", "building": "GMCS", "room": "100"}]}, admin)
        self.assertEqual(status, 201, created)
        class_id = created["id"]
        # Student A takes the seat; student B (in the browser) joins the waitlist from the catalog.
        _, holder = new_student("seat-holder")
        status, body = api("POST", "/v1/me/registration/enrollments", {"classId": class_id}, holder)
        self.assertEqual(status, 201, body)
        waiting, _ = new_student("waiting")
        self.sign_in(waiting, "catalog", "Catalog")
        self.search_catalog(instructor)
        card = b.visible(f"article[data-class-id='{class_id}']")
        b.click(card.find_element(By.CSS_SELECTOR, "button[data-action=waitlist]"))
        b.text_in(f"article[data-class-id='{class_id}'] .note", "position 1")
        b.click(b.css("nav a[href='#/registration']"))
        b.xpath("//section[@aria-labelledby='waitlist-title']//strong[contains(., 'CS 540')]")
        self.assertIn("offered", b.css("#waitlist-policy").text)

        # A drops: the seat is offered to B, who sees it in My classes and accepts it.
        status, body = api("DELETE", f"/v1/me/registration/enrollments/{class_id}", token=holder)
        self.assertEqual(status, 204, body)
        b.driver.refresh()
        accept = b.clickable(f"#offers button[data-action=accept-offer][data-class-id='{class_id}']")
        self.assertIn("CS 540", b.css("#offers").text)
        b.full_screenshot("03b-seat-offer")
        b.click(accept)
        b.xpath(f"//ul[@id='enrollments']/li[@data-class-id='{class_id}']")
        self.assertEqual(b.all("#offers"), [])
        b.xpath("//section[@aria-labelledby='waitlist-title']//p[contains(., 'no waitlist')]")
        token = sign_in_api(waiting, PASSWORD)
        _, mine = api("GET", "/v1/me/registration", token=token)
        self.assertEqual([e["classId"] for e in mine["enrollments"]], [class_id])
        self.assertEqual(mine["offers"], [])
        self.assertNoConsoleErrors()

    def test_b_watching_a_course_and_choosing_what_devices_receive(self):
        b = self.b
        username, token = new_student("watcher", profile=False)
        self.sign_in(username, "catalog", "Catalog")
        self.search_catalog("ROOT", "CS")
        card = b.visible("article[data-class-id='7036']")
        b.click(card.find_element(By.CSS_SELECTOR, "details.watch > summary"))
        b.click(card.find_element(By.CSS_SELECTOR, "button[data-action=watch-course]"))
        note = b.text_in("article[data-class-id='7036'] .note", "every section")
        self.assertIn("any section of CS 540", note.text)
        # The same class watched on its own, from the Notifications page's form, told when full again.
        b.click(b.css("nav a[href='#/notifications']"))
        b.click(b.xpath("//summary[.='Watch a class or a course']"))
        alert_form = b.visible("#seat-alert-form")
        b.fill(alert_form.find_element(By.NAME, "classId"), "7036")
        b.click(alert_form.find_element(By.NAME, "notifyClosed"))
        b.click(alert_form.find_element(By.CSS_SELECTOR, "button[type=submit]"))
        b.until(lambda: len(b.all("#seat-alerts > li")) == 2, "two seat alerts")
        kinds = sorted(li.get_attribute("data-kind") for li in b.all("#seat-alerts > li"))
        self.assertEqual(kinds, ["class", "course"])
        listed = " ".join(b.texts("#seat-alerts > li"))
        self.assertIn("any section of CS 540", listed)
        self.assertIn("also when full again", listed)

        # Devices stop getting changed grades; the choice is saved and shown again.
        prefs = b.visible("#prefs-form")
        changed = prefs.find_element(By.CSS_SELECTOR, "input[name=categories][value='grade.changed']")
        self.assertTrue(changed.is_selected())
        b.click(changed)
        b.click(b.css("#prefs-save"))
        b.text_in("#prefs-form .note", "saved")
        _, saved = api("GET", "/v1/me/push-preferences", token=token)
        self.assertFalse(saved["categories"]["grade.changed"])
        self.assertTrue(saved["categories"]["seat.open"])
        b.driver.refresh()
        changed = b.visible("#prefs-form input[name=categories][value='grade.changed']")
        self.assertFalse(changed.is_selected())
        self.assertIn("No stored gradebook account", b.css("section[aria-labelledby=grade-alerts-title]").text)
        self.assertIn("No email address", b.css("#email-devices").text)
        self.assertEqual(unlabelled_controls(b), [])
        b.full_screenshot("07b-notification-settings")
        self.assertNoConsoleErrors()

    def test_c_a_saved_schedule_has_its_own_feed_link(self):
        b = self.b
        username, token = new_student("feeder", profile=False)
        status, saved = api("POST", "/v1/me/schedules", {"name": "Feed plan", "term": "2018-fall", "classIds": [7036, 7030]}, token)
        self.assertEqual(status, 201, saved)
        self.sign_in(username, "schedules", "Saved schedules")
        b.click(b.xpath(f"//a[@href='#/schedules?id={saved['id']}']"))
        b.text_in("#schedule-title", "Feed plan")
        b.text_in("#schedule-feed-box", "No subscription link")
        b.click(b.css("#schedule-feed-create"))
        address = b.visible("#schedule-feed-address").get_attribute("value")
        self.assertRegex(address, r"/calendar/[A-Za-z0-9_-]{43}\.ics$")
        self.assertTrue(address.startswith(BASE_URL), address)
        with urllib.request.urlopen(address) as response:
            self.assertTrue(response.headers["Content-Type"].startswith("text/calendar"))
            text = response.read().decode()
        self.assertTrue(text.startswith("BEGIN:VCALENDAR"), text[:80])
        self.assertIn("CS 540", text)
        b.full_screenshot("05b-schedule-feed")
        # The registration's feed is a different one: this student has none.
        self.assertEqual(api("GET", "/v1/me/calendar-feed", token=token)[0], 404)
        b.click(b.css("#schedule-feed-revoke"))
        b.text_in("#schedule-feed-box", "revoked")
        self.assertEqual(api("GET", address[len(BASE_URL):])[0], 404)
        self.assertNoConsoleErrors()

    def test_d_builder_pins_limits_units_and_warns_over_the_class_limit(self):
        b = self.b
        _, settings = api("GET", "/v1/registration/settings")
        b.open("/#/builder")
        form = b.visible("#builder-form")
        self.assertIn(f"allows {settings['classLimit']} classes", b.css("#builder-class-limit").text)
        # Start from an empty request.
        for remove in b.all("#builder-courses button, #builder-pinned button, #builder-excluded button"):
            b.click(remove)
        course_input = form.find_element(By.NAME, "courses")
        for course in BUILDER_COURSES:
            b.fill(course_input, course)
            b.click(b.css("#add-course"))
        b.click(b.css("#build-submit"))
        b.text_in("#build-summary", "schedules fit")
        first = b.css(".schedule-list > li:first-child details.schedule")
        classes = first.find_elements(By.CSS_SELECTOR, "ul.sections > li")
        self.assertGreater(len(classes), settings["classLimit"])
        self.assertIn("Over the class limit", first.text)
        # Pin the best schedule's first class and exclude its second; build again.
        pinned = classes[0].get_attribute("data-class-id")
        excluded = classes[1].get_attribute("data-class-id")
        b.click(classes[0].find_element(By.CSS_SELECTOR, "button[data-action=pin]"))
        b.click(classes[1].find_element(By.CSS_SELECTOR, "button[data-action=exclude]"))
        b.visible(f"#builder-pinned li[data-class-id='{pinned}']")
        b.visible(f"#builder-excluded li[data-class-id='{excluded}']")
        b.click(b.css("#build-submit"))
        b.text_in("#build-summary", "schedules fit")
        for schedule in b.all(".schedule-list details.schedule"):
            ids = [li.get_attribute("data-class-id") for li in schedule.find_elements(By.CSS_SELECTOR, "ul.sections > li")]
            self.assertIn(pinned, ids)
            self.assertNotIn(excluded, ids)
        b.full_screenshot("04b-builder-constraints")
        # Too few units for the courses: nothing fits, and the explanation names the unit limits.
        max_units = form.find_element(By.NAME, "maxUnits")
        b.fill(max_units, "3")
        b.click(b.css("#build-submit"))
        b.text_in("#build-summary", "No schedule fits")
        self.assertIn("unit", b.visible("#build-explanation").text.lower())
        b.fill(max_units, "")
        self.assertEqual(unlabelled_controls(b), [])
        self.assertNoConsoleErrors()

    def test_e_email_devices_and_unknown_channels(self):
        """Devices the API may list later: an email address still to confirm (its code goes to
        POST /v1/me/devices/{id}/confirm) and a channel this page has never heard of. The
        browser's fetch answers the device list; everything else reaches the gateway."""
        b = self.b
        username, _ = new_student("mailer", profile=False)
        self.sign_in(username, "catalog", "Catalog")
        b.driver.execute_script(FAKE_DEVICES)
        b.click(b.css("nav a[href='#/notifications']"))
        email = b.visible("#email-devices li[data-device-id='901']")
        self.assertIn("ada@example.edu", email.text)
        self.assertIn("not confirmed", email.text)
        b.visible("#devices li[data-device-id='902']")
        self.assertIn("carrier pigeon", b.css("#devices li[data-device-id='902']").text)
        self.assertEqual(b.all("#devices li[data-device-id='901']"), [])
        self.assertEqual(unlabelled_controls(b), [])
        code = email.find_element(By.NAME, "code")
        b.fill(code, "123456")
        b.click(email.find_element(By.CSS_SELECTOR, "form.confirm-form button[type=submit]"))
        b.until(lambda: b.driver.execute_script("return window.confirmedCodes.length") == 1, "the confirmation posted")
        self.assertEqual(b.driver.execute_script("return window.confirmedCodes"), [{"code": "123456"}])
        self.assertNoConsoleErrors()


# Answers GET /v1/me/devices with an unconfirmed email address and a device of an unknown
# channel, and records what is posted to the address's confirm route.
FAKE_DEVICES = """
const realFetch = window.fetch.bind(window);
window.confirmedCodes = [];
const email = { id: 901, channel: 'email', name: '', address: 'ada@example.edu', confirmed: false, active: true,
  createdAt: '2026-01-05T10:00:00Z', failureCount: 0 };
const pigeon = { id: 902, channel: 'carrier pigeon', name: '', active: true, createdAt: '2026-01-05T10:00:00Z' };
const json = (body, status) => new Response(JSON.stringify(body), { status: status || 200, headers: { 'content-type': 'application/json' } });
window.fetch = async (input, init) => {
  const url = new URL(typeof input === 'string' ? input : input.url, window.location.origin);
  const method = (init && init.method) || 'GET';
  if (url.pathname === '/v1/me/devices' && method === 'GET') return json({ items: [email, pigeon] });
  if (url.pathname === '/v1/me/devices/901/confirm' && method === 'POST') {
    window.confirmedCodes.push(JSON.parse(init.body));
    return json({ ...email, confirmed: true });
  }
  return realFetch(input, init);
};
"""


# Four courses of the demo's 2018-fall term, two sections each, that fit together in sixteen
# ways: more classes than the default limit of three.
BUILDER_COURSES = ("CS 100", "CS 210", "CS 310", "CS 480")


if __name__ == "__main__":
    unittest.main()
