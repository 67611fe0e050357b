"""The operator console in headless Chromium: a student is refused; an admin enqueues a
diagnostic job that fails, finds it among the discarded jobs (filter chips on the Jobs page)
with its error history, and retries it from the console."""
import unittest

from browser import Browser, By, unlabelled_controls


class AdminConsoleTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.b = Browser(width=1400, height=1000)

    @classmethod
    def tearDownClass(cls):
        cls.b.quit()

    def sign_in(self, username, password):
        b = self.b
        form = b.visible("#signin-form")
        b.fill(form.find_element(By.NAME, "username"), username)
        b.fill(form.find_element(By.NAME, "password"), password)
        form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()

    def test_a_student_is_refused(self):
        b = self.b
        b.open("/admin/")
        self.sign_in("student", "demo-student-pass")
        refusal = b.visible("#refusal")
        self.assertIn("Administrators and operators only", refusal.text)
        b.screenshot("10-admin-refusal")
        b.click(refusal.find_element(By.XPATH, ".//button[contains(., 'Sign in as someone else')]"))
        b.visible("#signin-form")

    def test_b_an_admin_retries_a_failed_diagnostic_job(self):
        b = self.b
        b.open("/admin/")
        if not b.all("#signin-form"):
            b.click(b.clickable("#sign-out"))
        self.sign_in("admin", "demo-admin-pass")
        b.visible("#queues table")
        b.visible("#schedules table")
        b.click(b.css("#nav a[data-route='jobs']"))
        b.text_in("main h1", "Jobs")

        # Enqueue diagnostics.fail with one attempt: it fails once and is discarded.
        b.click(b.xpath("//details[contains(@class,'enqueue')]/summary"))
        form = b.visible("#enqueue-form")
        form.find_element(By.CSS_SELECTOR, "select[name=kind] option[value='diagnostics.fail']").click()
        b.fill(form.find_element(By.NAME, "args"), '{"message": "browser test failure"}')
        b.fill(form.find_element(By.NAME, "maxAttempts"), "1")
        b.click(form.find_element(By.CSS_SELECTOR, "button[type=submit]"))
        toast = b.text_in("#toast", "enqueued")
        job_id = toast.text.split()[1]

        # Filter the jobs to discarded diagnostics.fail ones and wait for this one.
        for key, value in (("state", "discarded"), ("kind", "diagnostics.fail")):
            filters = b.css("#job-filters")
            filters.find_element(By.CSS_SELECTOR, f"#job-filter-key option[value='{key}']").click()
            b.fill(filters.find_element(By.NAME, "filterValue"), value)
            b.click(filters.find_element(By.CSS_SELECTOR, "button[type=submit]"))
        b.visible("#job-chips li[data-filter='state:discarded']")
        b.visible("#job-chips li[data-filter='kind']")
        row_selector = f"#jobs-table tr[data-job-id='{job_id}'][data-state='discarded']"
        b.until(lambda: b.all(row_selector), f"job {job_id} discarded", timeout=40)
        b.click_css(f"{row_selector} button[data-key='details-{job_id}']")
        history = b.xpath("//tr[contains(@class,'expanded')]//ol[contains(@class,'errors')]")
        self.assertIn("browser test failure", history.text)
        self.assertEqual(unlabelled_controls(b), [])
        b.full_screenshot("11-admin-console", max_height=2600)

        # Retry it: it gets one more attempt, fails again and shows two errors.
        b.click_css(f"{row_selector} button[data-action=retry]")
        b.text_in("#toast", f"Job {job_id} is")
        b.until(lambda: [r for r in b.all(f"#jobs-table tr[data-job-id='{job_id}']")
                         if r.find_element(By.CSS_SELECTOR, ".error-count").text == "2"],
                f"job {job_id} ran again", timeout=40)
        row = b.css(f"#jobs-table tr[data-job-id='{job_id}']")
        self.assertEqual(row.find_element(By.CSS_SELECTOR, ".attempts").text, "2 / 2")
        b.screenshot("12-admin-retried")
        self.assertEqual(b.console_errors(), [])


if __name__ == "__main__":
    unittest.main()
