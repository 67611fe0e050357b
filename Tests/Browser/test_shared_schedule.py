"""A schedule shared by link, in headless Chromium against the demo: a student shares a saved
schedule through the API; the link's page shows its week grid and calendar link to someone not
signed in (with axe and labelled controls), and asks them to sign in to copy it; a signed-in
student saves a copy, which opens as their own schedule; a revoked link's page says it is gone."""
import unittest

import test_student_features as features
from accessibility import check_accessibility
from browser import Browser, unlabelled_controls

TERM = "2018-fall"
CLASSES = [7000]


class SharedScheduleTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.b = Browser()

    @classmethod
    def tearDownClass(cls):
        cls.b.quit()

    def share(self):
        _, owner = features.new_student("sharer")
        status, saved = features.api("POST", "/v1/me/schedules", {"name": "Plan to share", "term": TERM, "classIds": CLASSES}, owner)
        self.assertEqual(status, 201, saved)
        status, link = features.api("POST", f"/v1/me/schedules/{saved['id']}/share-links", {"expiresIn": "1d"}, owner)
        self.assertEqual(status, 201, link)
        token = link["path"].rsplit("/", 1)[1]
        return owner, saved["id"], link["id"], token

    def test_anyone_with_the_link_sees_the_week_and_its_calendar(self):
        b = self.b
        _, _, _, token = self.share()
        b.open("/")
        b.driver.execute_script("window.localStorage.clear(); window.sessionStorage.clear();")
        b.open(f"/shared/{token}")
        b.text_in("#shared-title", "Plan to share")
        self.assertTrue(b.all(".week-grid, figure"), "the week grid")
        calendar = b.css("#shared-calendar")
        self.assertTrue(calendar.get_attribute("href").endswith(f"/v1/shared/schedules/{token}/calendar.ics"))
        self.assertTrue(b.all("#sign-in-to-copy"), "someone not signed in is asked to sign in to copy")
        self.assertEqual(unlabelled_controls(b), [])
        check_accessibility(self, b, "shared-schedule")
        self.assertEqual(b.console_errors(), [])

    def test_a_signed_in_student_saves_a_copy_and_a_revoked_link_is_gone(self):
        b = self.b
        owner, schedule_id, link_id, token = self.share()
        username, _ = features.new_student("copier")
        b.open("/#/signin")
        form = b.visible("#signin-form")
        b.fill(form.find_element("name", "username"), username)
        b.fill(form.find_element("name", "password"), features.PASSWORD)
        form.find_element("css selector", "button[type=submit]").click()
        b.text_in("#account", username)
        b.open(f"/shared/{token}")
        b.text_in("#shared-title", "Plan to share")
        b.click(b.clickable("#save-copy"))
        b.text_in("#schedule-title", "Plan to share")
        self.assertIn("#/schedules?id=", b.driver.current_url)

        status, _ = features.api("DELETE", f"/v1/me/schedules/{schedule_id}/share-links/{link_id}", token=owner)
        self.assertEqual(status, 204)
        b.open(f"/shared/{token}")
        b.text_in(".error-slot", "expired or been revoked")
        check_accessibility(self, b, "shared-schedule-gone")
        # An address that is not valid percent-encoding shows the same message, not a stuck page.
        b.open("/shared/%E0%A4%A")
        b.text_in(".error-slot", "expired or been revoked")
        self.assertEqual(b.console_errors(), [])


if __name__ == "__main__":
    unittest.main()
