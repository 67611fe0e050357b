"""The web app shows what the API does: a waitlist seat offered to a student and accepted in My
classes; a course watched for open seats from the catalog, with the notification categories;
a saved schedule's private calendar feed (create, fetch, revoke); the builder's pinned classes,
unit limits and its warning over the registration's class limit; an email address added and
confirmed with the code the demo's log mailer logs; a browser subscribed with an old Web Push key
renewed. The demo is set up through the
API (an admin adds a one-seat class; other students take and free its seat)."""
import base64
import json
import os
import random
import time
import unittest
import urllib.error
import urllib.request

from selenium.webdriver.support import expected_conditions as EC

from browser import BASE_URL, GATEWAY_LOG, Browser, By, confirmation_codes, unlabelled_controls, wait_for_confirmation_codes

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
        # The first build's results stay until the second's replace them: wait for that, then
        # read every schedule's classes at one instant (no stale elements).
        previous = b.css("#build-summary")
        b.click(b.css("#build-submit"))
        b.wait.until(EC.staleness_of(previous))
        b.text_in("#build-summary", "schedules fit")
        schedules = b.driver.execute_script(
            "return [...document.querySelectorAll('.schedule-list details.schedule')]"
            ".map((s) => [...s.querySelectorAll('ul.sections > li')].map((li) => li.dataset.classId))")
        self.assertTrue(schedules)
        for ids in schedules:
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

    def test_e_an_email_address_is_added_and_confirmed(self):
        """Nothing stubbed: the student adds an address on the Notifications page (a malformed
        one first: the 422 names the field), the demo's log mailer logs the mailed code, a wrong
        code is refused with the tries left, a new code is asked for, the latest code typed in
        confirms the address; a second address asked for too many codes shows the 429 with when
        to try again."""
        if GATEWAY_LOG is None:
            self.skipTest("needs the gateway's log (GATEWAY_LOG, which scripts/check-browser.sh sets) to read the mailed code")
        b = self.b
        username, token = new_student("mailer", profile=False)
        self.sign_in(username, "catalog", "Catalog")
        b.click(b.css("nav a[href='#/notifications']"))
        b.text_in("#email-devices", "No email address")

        form = b.visible("#email-add-form")
        b.fill(form.find_element(By.NAME, "email"), "ada at example.edu")
        b.click(form.find_element(By.CSS_SELECTOR, "button[type=submit]"))
        b.text_in("#email-add-form .problem", "Check: email")
        self.assertEqual(form.find_element(By.NAME, "email").get_attribute("aria-invalid"), "true")

        address = f"{username}@example.edu"
        b.fill(form.find_element(By.NAME, "email"), address)
        b.fill(form.find_element(By.NAME, "name"), "University mail")
        b.click(form.find_element(By.CSS_SELECTOR, "button[type=submit]"))
        device_id = int(b.until(lambda: b.driver.execute_script(
            "const li = document.querySelector('#email-list > li'); return li && li.dataset.deviceId"), "the address listed"))
        li = f"#email-list > li[data-device-id='{device_id}']"
        self.assertIn(address, b.css(li).text)
        self.assertEqual(b.texts(f"{li} .badge"), ["not confirmed"])
        (first,) = wait_for_confirmation_codes(device_id, 1)

        # A wrong code: the API's 422 with the tries left, the code input marked.
        b.fill(b.css(f"{li} input[name=code]"), "000000" if first != "000000" else "111111")
        b.click(b.css(f"{li} form.confirm-form button[type=submit]"))
        b.text_in(f"{li} form.confirm-form .problem", "Wrong confirmation code")
        self.assertIn("4 tries left", b.css(f"{li} form.confirm-form .problem").text)
        self.assertEqual(b.css(f"{li} input[name=code]").get_attribute("aria-invalid"), "true")

        # A new code; only the latest one works.
        b.click(b.css(f"{li} button[data-action=resend-confirmation]"))
        b.text_in(f"{li} .confirm-box > .error-slot", "new code")
        codes = wait_for_confirmation_codes(device_id, 2)
        b.fill(b.css(f"{li} input[name=code]"), codes[-1])
        b.click(b.css(f"{li} form.confirm-form button[type=submit]"))
        b.until(lambda: b.texts(f"{li} .badge") == ["confirmed", "active"], "the address confirmed")
        self.assertEqual(b.all(f"{li} input[name=code]"), [])
        status, device = api("GET", f"/v1/me/devices/{device_id}", token=token)
        self.assertEqual(status, 200, device)
        self.assertTrue(device["confirmed"])
        self.assertTrue(device["active"])

        # A second address: three mails are the most per address in a day; a fourth is the 429.
        form = b.visible("#email-add-form")
        second = f"{username}.alt@example.edu"
        b.fill(form.find_element(By.NAME, "email"), second)
        b.click(form.find_element(By.CSS_SELECTOR, "button[type=submit]"))
        other = int(b.until(lambda: b.driver.execute_script(
            "const li = [...document.querySelectorAll('#email-list > li')].find((e) => e.textContent.includes(arguments[0]));"
            " return li && li.dataset.deviceId", second), "the second address listed"))
        other_li = f"#email-list > li[data-device-id='{other}']"
        wait_for_confirmation_codes(other, 1)
        for mails in (2, 3):
            b.click(b.clickable(f"{other_li} button[data-action=resend-confirmation]"))
            wait_for_confirmation_codes(other, mails)
        b.clickable(f"{other_li} button[data-action=resend-confirmation]")
        b.click(b.css(f"{other_li} button[data-action=resend-confirmation]"))
        problem = b.text_in(f"{other_li} .confirm-box > .error-slot", "Too many confirmation mails")
        self.assertIn("Try again in", problem.text)
        self.assertEqual(len(confirmation_codes(other)), 3)
        self.assertEqual(b.texts(f"{li} .badge"), ["confirmed", "active"])
        self.assertEqual(unlabelled_controls(b), [])
        b.driver.execute_script("document.querySelector('#email-devices').scrollIntoView({block: 'start'})")
        b.screenshot("07c-email-confirmed")
        self.assertNoConsoleErrors()

    def test_e2_a_phone_number_is_added_confirmed_and_removed(self):
        """Text messages: a number that is not E.164 is refused naming the field; one typed with
        spaces is added (the page drops them) and listed unconfirmed; the code the demo's log
        SMS sender logged confirms it; it can be removed."""
        if GATEWAY_LOG is None:
            self.skipTest("needs the gateway's log (GATEWAY_LOG, which scripts/check-browser.sh sets) to read the texted code")
        b = self.b
        username, token = new_student("texter", profile=False)
        self.sign_in(username, "catalog", "Catalog")
        b.click(b.css("nav a[href='#/notifications']"))
        b.text_in("#sms-devices", "No phone number")

        form = b.visible("#sms-add-form")
        b.fill(form.find_element(By.NAME, "phone"), "619 555 0123")
        b.click(form.find_element(By.CSS_SELECTOR, "button[type=submit]"))
        b.text_in("#sms-add-form .problem", "Check: phone")
        self.assertEqual(form.find_element(By.NAME, "phone").get_attribute("aria-invalid"), "true")

        number = "+1619555" + str(int(time.time() * 1000) % 10000).zfill(4)
        b.fill(form.find_element(By.NAME, "phone"), f"{number[:2]} {number[2:5]} {number[5:8]} {number[8:]}")
        b.click(form.find_element(By.CSS_SELECTOR, "button[type=submit]"))
        device_id = int(b.until(lambda: b.driver.execute_script(
            "const li = document.querySelector('#sms-list > li'); return li && li.dataset.deviceId"), "the number listed"))
        li = f"#sms-list > li[data-device-id='{device_id}']"
        self.assertIn(number, b.css(li).text)
        self.assertEqual(b.texts(f"{li} .badge"), ["not confirmed"])
        (code,) = wait_for_confirmation_codes(device_id, 1)
        b.fill(b.css(f"{li} input[name=code]"), code)
        b.click(b.css(f"{li} form.confirm-form button[type=submit]"))
        b.until(lambda: b.texts(f"{li} .badge") == ["confirmed", "active"], "the number confirmed")
        status, device = api("GET", f"/v1/me/devices/{device_id}", token=token)
        self.assertEqual(status, 200, device)
        self.assertEqual(device["phone"], number)
        self.assertTrue(device["confirmed"])
        self.assertEqual(unlabelled_controls(b), [])
        b.click(b.css(f"{li} button[aria-label='Remove {device.get('name') or number}']"))
        b.text_in("#sms-devices", "No phone number")
        self.assertNoConsoleErrors()

    def test_f_a_channel_the_page_does_not_know(self):
        """A device of a channel the API may add later shows by its name and fields. The
        browser's fetch answers the device list (the API refuses unknown channels today);
        everything else reaches the gateway."""
        b = self.b
        username, _ = new_student("pigeon", profile=False)
        self.sign_in(username, "catalog", "Catalog")
        b.driver.execute_script(FAKE_DEVICES)
        b.click(b.css("nav a[href='#/notifications']"))
        pigeon = b.visible("#devices li[data-device-id='902']")
        self.assertIn("carrier pigeon", pigeon.text)
        self.assertIn("No email address", b.css("#email-devices").text)
        self.assertEqual(unlabelled_controls(b), [])
        self.assertNoConsoleErrors()

    def test_g_a_browser_subscribed_with_an_old_key_is_renewed(self):
        """A browser whose Web Push subscription was made with an earlier VAPID key (the server's
        key changed since: push services refuse the old key's deliveries) is told so on the
        Notifications page, and Renew subscribes it again with the current key and replaces its
        device. Headless Chromium has no push service, so the page's service worker registration
        and PushManager are stand-ins that record what the page asks of them; the devices and the
        key are the gateway's."""
        b = self.b
        username, token = new_student("renewer", profile=False)
        p256dh, auth = web_push_keys()
        status, old = api("POST", "/v1/me/devices", {
            "channel": "webpush", "name": "Chrome (web app)", "endpoint": "https://push.example.com/send/old", "p256dh": p256dh, "auth": auth}, token)
        self.assertEqual(status, 201, old)
        old_id = old["device"]["id"]
        # A fresh page: no stand-in an earlier test left in this window (test_f's fetch).
        b.driver.get("about:blank")
        self.sign_in(username, "catalog", "Catalog")
        b.driver.execute_script(PUSH_STAND_IN, p256dh, auth, old_id)
        b.click(b.css("nav a[href='#/notifications']"))
        browser = "section[aria-labelledby=browser-title]"
        b.text_in(f"{browser} [role=status]", "no longer reach this browser")
        b.click(b.xpath("//section[@aria-labelledby='browser-title']//button[contains(., 'Renew')]"))
        b.until(lambda: b.driver.execute_script("return window.pushStandIn.subscribed") == 1, "subscribed again")
        b.until(lambda: b.driver.execute_script("return localStorage.getItem('campus-gateway.webpush-device')") != str(old_id), "the new device kept")
        new_id = int(b.driver.execute_script("return localStorage.getItem('campus-gateway.webpush-device')"))
        stand_in = b.driver.execute_script(
            "const s = window.pushStandIn; return {unsubscribed: s.unsubscribed, key: Array.from(s.subscribedWith)}")
        self.assertEqual(stand_in["unsubscribed"], 1, "the old key's subscription ended")
        _, vapid = api("GET", "/v1/push/vapid-public-key")
        self.assertEqual(bytes(stand_in["key"]), base64.urlsafe_b64decode(vapid["publicKey"] + "=" * (-len(vapid["publicKey"]) % 4)))
        self.assertEqual(api("GET", f"/v1/me/devices/{old_id}", token=token)[0], 404, "the old device is gone")
        status, device = api("GET", f"/v1/me/devices/{new_id}", token=token)
        self.assertEqual(status, 200, device)
        self.assertEqual(device["channel"], "webpush")
        # Shown again, the page finds the subscription current: no warning, no renewal.
        b.text_in(f"{browser} p", "This browser is registered as")
        b.until(lambda: not b.all(f"{browser} .warning"), "the warning gone")
        self.assertEqual(b.driver.execute_script("return window.pushStandIn.subscribed"), 1)
        self.assertNoConsoleErrors()


# Answers GET /v1/me/devices with a device of a channel the page doesn't know.
FAKE_DEVICES = """
const realFetch = window.fetch.bind(window);
const pigeon = { id: 902, channel: 'carrier pigeon', name: '', active: true, createdAt: '2026-01-05T10:00:00Z', failureCount: 0 };
const json = (body, status) => new Response(JSON.stringify(body), { status: status || 200, headers: { 'content-type': 'application/json' } });
window.fetch = async (input, init) => {
  const url = new URL(typeof input === 'string' ? input : input.url, window.location.origin);
  const method = (init && init.method) || 'GET';
  if (url.pathname === '/v1/me/devices' && method === 'GET') return json({ items: [pigeon] });
  return realFetch(input, init);
};
"""


# Four courses of the demo's 2018-fall term, two sections each, that fit together in sixteen
# ways: more classes than the default limit of three.

def web_push_keys():
    """A browser subscription's keys, base64url: a P-256 public key (65 bytes) and a 16-byte secret."""
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
    public = ec.generate_private_key(ec.SECP256R1()).public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    encode = lambda data: base64.urlsafe_b64encode(data).rstrip(b"=").decode()
    return encode(public), encode(os.urandom(16))


# Stands in for the browser's push service in the page: a service worker registration whose
# PushManager holds one subscription, first one made with another key (65 bytes of 4s). Records
# unsubscriptions, subscriptions and the key asked for. Arguments: p256dh, auth, the device id
# this browser registered.
PUSH_STAND_IN = """
const [p256dh, auth, deviceId] = arguments;
localStorage.setItem('campus-gateway.webpush-device', String(deviceId));
const made = (key, endpoint) => ({
  endpoint, options: { applicationServerKey: key.buffer },
  unsubscribe: async () => { window.pushStandIn.unsubscribed += 1; window.pushStandIn.current = null; return true; },
  toJSON: () => ({ endpoint, keys: { p256dh, auth } }),
});
window.pushStandIn = { unsubscribed: 0, subscribed: 0, subscribedWith: [], current: made(new Uint8Array(65).fill(4), 'https://push.example.com/send/old') };
const registration = { pushManager: {
  getSubscription: async () => window.pushStandIn.current,
  subscribe: async (options) => {
    const key = new Uint8Array(options.applicationServerKey);
    window.pushStandIn.subscribed += 1;
    window.pushStandIn.subscribedWith = key;
    window.pushStandIn.current = made(key, 'https://push.example.com/send/new');
    return window.pushStandIn.current;
  },
} };
Object.defineProperty(navigator, 'serviceWorker', { configurable: true, value: {
  register: async () => registration, ready: Promise.resolve(registration), getRegistration: async () => registration,
} });
Notification.requestPermission = async () => 'granted';
"""


BUILDER_COURSES = ("CS 100", "CS 210", "CS 310", "CS 480")


if __name__ == "__main__":
    unittest.main()
