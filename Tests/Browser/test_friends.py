"""Friends and sharing in headless Chromium against the demo (issue 51, the web app), with students
made through the API for each test:

- the Friends page: a request sent by username shows the API's neutral answer (the same for a
  username nobody has), the other student sets their display name and accepts in the page, an
  unsent request is cancelled, enrollments are shared (and a student without a profile is told
  why not), and an unfriend ends it;
- decline and block: the sender lands on the blocks list, their next request goes nowhere, and
  unblock lifts it;
- a saved schedule's visibility (private / friends) set in the page, as the friend's view sees it,
  and share links: created with an expiry, copied (the clipboard, and its fallback), listed,
  opened, revoked;
- the week view's "Show friends": the friend's class drawn over the student's own week, its
  friend's name on a focusable block, beside (not over) the student's own class;
- the catalog's "1 friend" on a class a friend takes, with the name; nothing signed out.

axe runs on each new view and state; every control is labelled."""
import random
import unittest

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

import test_student_features as features
from accessibility import check_accessibility
from browser import BASE_URL, Browser, By, unlabelled_controls

TERM = "2018-fall"
CLASS = 7000


def named_student(prefix, display_name=None, profile=True):
    """A student made through the API (with a display name when given): (username, token)."""
    username, token = features.new_student(prefix, profile=profile)
    if display_name:
        status, body = features.api("PATCH", "/v1/me", {"displayName": display_name}, token)
        assert status == 200, body
    return username, token


def befriend(token_a, token_b, username_b):
    """Makes two students friends through the API."""
    status, body = features.api("POST", "/v1/me/friends/requests", {"username": username_b}, token_a)
    assert status == 202, body
    status, requests = features.api("GET", "/v1/me/friends/requests", token=token_b)
    assert status == 200, requests
    incoming = [r for r in requests["items"] if r["direction"] == "incoming"]
    assert len(incoming) == 1, requests
    status, body = features.api("POST", f"/v1/me/friends/requests/{incoming[0]['id']}/accept", token=token_b)
    assert status == 200, body


def save_schedule(token, name, class_ids, visibility=None):
    status, saved = features.api("POST", "/v1/me/schedules", {"name": name, "term": TERM, "classIds": class_ids}, token)
    assert status == 201, saved
    if visibility:
        status, saved = features.api("PATCH", f"/v1/me/schedules/{saved['id']}", {"visibility": visibility}, token)
        assert status == 200, saved
    return saved


class FriendsTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.b = Browser(width=1280, height=1000)

    @classmethod
    def tearDownClass(cls):
        cls.b.quit()

    # Helpers ---------------------------------------------------------------------------------

    def sign_in(self, username, password, then, heading):
        b = self.b
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

    def open_friends(self):
        b = self.b
        b.open("/#/friends")
        b.text_in("main h1", "Friends")
        b.visible("#friends-title")

    def send_request(self, username):
        b = self.b
        b.fill(b.css("#friend-request-form input[name=username]"), username)
        b.click(b.css("#friend-request-send"))
        return b.visible("#friend-request-result .note").text

    def assertClean(self, name):
        self.assertEqual(unlabelled_controls(self.b), [])
        check_accessibility(self, self.b, name)
        self.assertEqual(self.b.console_errors(), [])

    # The Friends page ------------------------------------------------------------------------

    def test_a_request_is_sent_accepted_and_ended_in_the_page(self):
        b = self.b
        suffix = random.randrange(1000, 9999)
        ada, ada_token = named_student("ada", f"Ada {suffix}")
        bob, bob_token = named_student("bob")
        self.sign_in(ada, features.PASSWORD, "friends", "Friends")
        b.text_in("#friends-title", "Your friends (0)")
        self.assertClean("friends-empty")

        # A username that exists and one that does not get the same neutral answer.
        b.visible("#friend-request-form")
        to_bob = self.send_request(bob)
        self.assertIn("If this username belongs to a student", to_bob)
        b.text_in("#outgoing-requests-title", "(1)")
        nobody = f"nobody-{random.randrange(10**6, 10**7)}"
        b.driver.execute_script("document.querySelector('#friend-request-result').replaceChildren()")
        self.assertEqual(self.send_request(nobody), to_bob)
        b.text_in("#outgoing-requests-title", "(2)")
        outgoing = b.texts("#outgoing-requests li strong")
        self.assertEqual(sorted(outgoing), sorted([bob, nobody]))
        # Cancel the one to nobody.
        b.click(b.css(f"#outgoing-requests button[aria-label='Cancel the friend request to {nobody}']"))
        b.text_in("#outgoing-requests-title", "(1)")
        self.assertEqual(b.texts("#outgoing-requests li strong"), [bob])
        self.assertClean("friends-outgoing")

        # Bob chooses his name and accepts Ada's request in the page.
        self.sign_in(bob, features.PASSWORD, "friends", "Friends")
        b.text_in("#incoming-requests-title", "Requests to you (1)")
        self.assertIn(f"Ada {suffix} ({ada})", b.css("#incoming-requests li").text)
        self.assertClean("friends-incoming")
        b.fill(b.css("#display-name-form input[name=displayName]"), f"Bobby {suffix}")
        b.click(b.css("#display-name-save"))
        b.text_in("#display-name-form + .error-slot .note", f"Bobby {suffix}")
        # A name the API refuses shows its problem, the field marked.
        b.fill(b.css("#display-name-form input[name=displayName]"), "Bob <b>")
        b.click(b.css("#display-name-save"))
        b.text_in("#display-name-form + .error-slot .problem", "may not hold")
        self.assertEqual(b.css("#display-name-form input[name=displayName]").get_attribute("aria-invalid"), "true")
        b.fill(b.css("#display-name-form input[name=displayName]"), f"Bobby {suffix}")
        b.click(b.css("#display-name-save"))
        b.text_in("#display-name-form + .error-slot .note", f"Bobby {suffix}")
        b.click(b.css("#incoming-requests button[data-action=accept]"))
        b.text_in("#friends-title", "Your friends (1)")
        b.text_in("#incoming-requests-title", "(0)")
        self.assertIn(f"Ada {suffix}", b.css("#friends li").text)
        status, friends = features.api("GET", "/v1/me/friends", token=ada_token)
        self.assertEqual(status, 200)
        self.assertEqual([(f["username"], f["displayName"]) for f in friends["items"]], [(bob, f"Bobby {suffix}")])

        # Bob shares his enrollments with friends.
        b.click(b.css("#share-enrollments"))
        b.text_in("#share-enrollments ~ .error-slot .note, .field-check + .error-slot .note", "friends see your registered classes")
        status, sharing = features.api("GET", "/v1/me/registration/sharing", token=bob_token)
        self.assertEqual(sharing, {"shareEnrollments": True})
        self.assertTrue(b.css("#share-enrollments").is_selected())
        self.assertClean("friends-accepted")
        b.full_screenshot("friends-page")

        # Unfriend: both lists empty, at once.
        b.driver.execute_script("window.confirm = () => true;")
        b.click(b.css("#friends button[data-action=unfriend]"))
        b.text_in("#friends-title", "Your friends (0)")
        status, friends = features.api("GET", "/v1/me/friends", token=ada_token)
        self.assertEqual(friends["items"], [])

    def test_b_sharing_enrollments_without_a_profile_says_why(self):
        b = self.b
        nemo, _ = named_student("nemo", profile=False)
        self.sign_in(nemo, features.PASSWORD, "friends", "Friends")
        box = b.visible("#share-enrollments")
        b.click(box)
        slot = b.text_in(".field-check + .error-slot", "student profile")
        self.assertTrue(slot.find_elements(By.CSS_SELECTOR, ".problem a[href='#/registration']"), "a link to create the profile")
        b.until(lambda: not b.css("#share-enrollments").is_selected() and b.css("#share-enrollments").is_enabled(), "the box unticked again")
        self.assertEqual(unlabelled_controls(b), [])
        check_accessibility(self, b, "friends-sharing-needs-profile")

    def test_c_decline_and_block_then_unblock(self):
        b = self.b
        cara, cara_token = named_student("cara", "Cara")
        dan, dan_token = named_student("dan")
        status, _ = features.api("POST", "/v1/me/friends/requests", {"username": dan}, cara_token)
        self.assertEqual(status, 202)
        self.sign_in(dan, features.PASSWORD, "friends", "Friends")
        b.text_in("#incoming-requests-title", "(1)")
        b.click(b.css("#incoming-requests button[data-action=decline-block]"))
        b.text_in("#blocks-title", "Blocked (1)")
        b.text_in("#incoming-requests-title", "(0)")
        self.assertEqual(b.texts("#blocks li strong"), [cara])
        status, blocks = features.api("GET", "/v1/me/blocks", token=dan_token)
        self.assertEqual([x["username"] for x in blocks["items"]], [cara])
        self.assertClean("friends-blocked")

        # Cara's next request is taken (202) and goes nowhere.
        status, _ = features.api("POST", "/v1/me/friends/requests", {"username": dan}, cara_token)
        self.assertEqual(status, 202)
        self.open_friends()
        b.text_in("#incoming-requests-title", "Requests to you (0)")

        b.click(b.css(f"#blocks button[aria-label='Unblock {cara}']"))
        b.text_in("#blocks-title", "Blocked (0)")
        status, blocks = features.api("GET", "/v1/me/blocks", token=dan_token)
        self.assertEqual(blocks["items"], [])

    # A saved schedule: visibility and share links --------------------------------------------

    def test_d_visibility_and_share_links_of_a_saved_schedule(self):
        b = self.b
        eve, eve_token = named_student("eve", "Eve")
        fay, fay_token = named_student("fay", "Fay")
        befriend(eve_token, fay_token, fay)
        saved = save_schedule(eve_token, "Eve's plan", [CLASS])
        self.sign_in(eve, features.PASSWORD, "schedules", "Saved schedules")
        b.open(f"/#/schedules?id={saved['id']}")
        b.text_in("#schedule-title", "Eve's plan")
        private = b.css("#schedule-visibility input[data-visibility=private]")
        self.assertTrue(private.is_selected(), "a schedule starts private")

        def friends_see():
            status, answer = features.api("GET", f"/v1/me/friends/schedules?term={TERM}", token=fay_token)
            assert status == 200, answer
            return [s["name"] for f in answer["items"] for s in f["schedules"]]

        self.assertEqual(friends_see(), [])
        b.click(b.css("#schedule-visibility input[data-visibility=friends]"))
        b.text_in(".sharing .error-slot .note", "Your friends now see this schedule")
        self.assertEqual(friends_see(), ["Eve's plan"])
        status, schedule = features.api("GET", f"/v1/me/schedules/{saved['id']}", token=eve_token)
        self.assertEqual(schedule["visibility"], "friends")
        b.click(b.css("#schedule-visibility input[data-visibility=private]"))
        b.text_in(".sharing .error-slot .note", "Only you see this schedule")
        self.assertEqual(friends_see(), [])

        # A share link for an hour; the clipboard holds its page's address.
        b.text_in("#share-links", "No live share links")
        origin = BASE_URL
        b.driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": origin, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})
        expiry = b.css("select[name=expiresIn]")
        expiry.find_element(By.CSS_SELECTOR, "option[value='1h']").click()
        b.click(b.css("#share-link-create"))
        address = b.visible("#share-link-address").get_attribute("value")
        self.assertRegex(address, r"^" + origin.replace(".", r"\.") + r"/shared/[A-Za-z0-9_-]{43}$")
        token = address.rsplit("/", 1)[1]
        b.until(lambda: len(b.all("#share-links li")) == 1, "the live link listed")
        listed = b.css("#share-links li").text
        self.assertIn("expires", listed)
        status, links = features.api("GET", f"/v1/me/schedules/{saved['id']}/share-links", token=eve_token)
        self.assertEqual(len(links["items"]), 1)
        self.assertEqual(links["items"][0]["id"], int(b.css("#share-links li").get_attribute("data-link-id")))
        self.assertIn("expiresAt", links["items"][0])
        b.click(b.css("#share-link-copy"))
        b.text_in("#share-link-copied", "Copied.")
        clipboard = b.driver.execute_async_script(
            "const done = arguments[0]; navigator.clipboard.readText().then(done, (e) => done('error: ' + e));")
        self.assertEqual(clipboard, address)
        # Without a clipboard, the address is selected for Ctrl+C.
        b.driver.execute_script("navigator.clipboard.writeText = () => Promise.reject(new Error('denied'));")
        b.click(b.css("#share-link-copy"))
        b.text_in("#share-link-copied", "Press Ctrl+C")
        self.assertEqual(b.driver.execute_script("return document.activeElement.id"), "share-link-address")
        self.assertClean("schedule-sharing")
        b.full_screenshot("schedule-sharing")

        # The address opens the shared page (naming Eve by her display name), until the link is revoked.
        status, shared = features.api("GET", f"/v1/shared/schedules/{token}")
        self.assertEqual((status, shared["name"]), (200, "Eve's plan"))
        b.open(f"/shared/{token}")
        b.text_in("#shared-title", "Eve's plan")
        b.text_in("#shared-by", "2018-fall · shared with you by Eve")
        b.open(f"/#/schedules?id={saved['id']}")
        b.until(lambda: len(b.all("#share-links li")) == 1, "the live link listed again")
        b.click(b.css("#share-links button[data-action=revoke-link]"))
        b.text_in("#share-links", "No live share links")
        status, _ = features.api("GET", f"/v1/shared/schedules/{token}")
        self.assertEqual(status, 404)
        status, links = features.api("GET", f"/v1/me/schedules/{saved['id']}/share-links", token=eve_token)
        self.assertEqual(links["items"], [])
        self.assertEqual(b.console_errors(), [])

    # The week view's friends, and the catalog's -----------------------------------------------

    def test_e_show_friends_draws_the_friends_class_beside_mine(self):
        b = self.b
        suffix = random.randrange(1000, 9999)
        gus, gus_token = named_student("gus", "Gus")
        hana, hana_token = named_student("hana", f"Hana {suffix}")
        befriend(gus_token, hana_token, hana)
        save_schedule(hana_token, "Hana's plan", [CLASS], visibility="friends")
        mine = save_schedule(gus_token, "Gus's plan", [CLASS])
        status, item = features.api("GET", f"/v1/registration/classes/{CLASS}")
        label = f"{item['course']}-{item['section']}"
        self.sign_in(gus, features.PASSWORD, "schedules", "Saved schedules")
        b.open(f"/#/schedules?id={mine['id']}")
        b.text_in("#schedule-title", "Gus's plan")
        self.assertEqual(b.all(".wg-friend"), [])
        toggle = b.css("#schedule-detail input.show-friends")
        self.assertEqual(toggle.get_attribute("id"), b.css("#schedule-detail .friends-toggle label").get_attribute("for"))
        self.assertIn("Show friends", b.css("#schedule-detail .friends-toggle label").text)
        b.click(toggle)
        b.until(lambda: len(b.all(".wg-friend")) > 0, "the friends overlay")
        blocks = b.all(".wg-friend")
        meetings = sum(len(m["days"]) for m in item["meetings"] if not m.get("tba") and m.get("days"))
        self.assertEqual(len(blocks), meetings)
        first = blocks[0]
        self.assertEqual(first.get_attribute("tabindex"), "0")
        self.assertIn(label, first.get_attribute("aria-label"))
        self.assertIn(f"Hana {suffix}", first.get_attribute("aria-label"))
        self.assertIn(f"Hana {suffix}", first.get_attribute("title"))
        b.text_in("#schedule-detail .friends-status", "1 class of friends shown")

        # Reached by the keyboard: Tab from the checkbox goes through the grid's region to it,
        # and focus shows the name.
        b.driver.execute_script("arguments[0].focus()", b.css("#schedule-detail .week-scroll"))
        ActionChains(b.driver).send_keys(Keys.TAB).perform()
        focused = b.driver.execute_script("return document.activeElement")
        self.assertEqual(focused.get_attribute("class"), "wg-friend")
        tip = b.driver.execute_script("return getComputedStyle(document.activeElement, '::after').content")
        self.assertIn(f"Hana {suffix}", tip)

        # Beside the student's own class at the same time, not over it.
        overlaps = b.driver.execute_script("""
          const mine = [...document.querySelectorAll('#schedule-detail .wg-block')].map((e) => e.getBoundingClientRect());
          const theirs = [...document.querySelectorAll('#schedule-detail .wg-friend')].map((e) => e.getBoundingClientRect());
          let n = 0;
          for (const a of mine) for (const f of theirs) {
            if (a.left < f.right && f.left < a.right && a.top < f.bottom && f.top < a.bottom) n += 1;
          }
          return [mine.length, n];""")
        self.assertGreater(overlaps[0], 0)
        self.assertEqual(overlaps[1], 0, "a friend's block covers one of the student's own")
        self.assertClean("week-with-friends")
        b.screenshot("week-with-friends")

        # Unticked: gone; and gone for good once no longer friends.
        b.click(b.css("#schedule-detail input.show-friends"))
        b.until(lambda: not b.all(".wg-friend"), "the overlay removed")
        status, _ = features.api("DELETE", f"/v1/me/friends/{features.api('GET', '/v1/me', token=hana_token)[1]['id']}", token=gus_token)
        self.assertEqual(status, 204)
        b.click(b.css("#schedule-detail input.show-friends"))
        b.text_in("#schedule-detail .friends-status", "No friend shares")
        self.assertEqual(b.all(".wg-friend"), [])

    def test_f_the_catalog_says_how_many_friends_take_a_class(self):
        b = self.b
        suffix = random.randrange(1000, 9999)
        ivy, ivy_token = named_student("ivy", "Ivy")
        jo, jo_token = named_student("jo", f"Jo {suffix}")
        befriend(ivy_token, jo_token, jo)
        save_schedule(jo_token, "Jo's plan", [CLASS], visibility="friends")
        status, item = features.api("GET", f"/v1/registration/classes/{CLASS}", token=ivy_token)
        self.assertEqual((item.get("friendCount"), [f["displayName"] for f in item.get("friends", [])]), (1, [f"Jo {suffix}"]))

        self.sign_in(ivy, features.PASSWORD, "catalog", "Catalog")
        # The search results: the class's own title, in its term.
        form = b.visible("#catalog-filters")
        b.driver.execute_script("document.querySelector('#catalog-filters details').open = true")
        b.fill(form.find_element(By.NAME, "q"), item["title"])
        form.find_element(By.CSS_SELECTOR, f"select[name=term] option[value='{TERM}']").click()
        form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        card = f".results article[data-class-id='{CLASS}']"
        count = b.text_in(f"{card} .friend-count", "1 friend")
        self.assertIn(f"Jo {suffix}", count.text)
        self.assertEqual(b.css(f"{card} .friend-count .badge").text, "1 friend")
        self.assertEqual(b.css(f"{card} .friend-count .badge").get_attribute("title"), f"Jo {suffix}")
        # Only the friend's class says so.
        others = b.driver.execute_script(
            "return [...document.querySelectorAll('.results article')].filter((a) => a.dataset.classId !== arguments[0] && a.querySelector('.friend-count')).length", str(CLASS))
        self.assertEqual(others, 0)
        self.assertClean("catalog-friends")
        b.screenshot("catalog-friends")

        # The class's own link shows the same; signed out, nothing.
        b.open(f"/#/catalog?class={CLASS}")
        b.text_in(f"#linked-class article[data-class-id='{CLASS}'] .friend-count", "1 friend")
        b.click(b.css("#sign-out"))
        b.visible("#signin-form")
        b.open(f"/#/catalog?class={CLASS}")
        b.visible(f"#linked-class article[data-class-id='{CLASS}']")
        self.assertEqual(b.all(".friend-count"), [])


if __name__ == "__main__":
    unittest.main()
