import Foundation
import Synchronization
import TestSupport
import Testing

/// The crash drills' load (both backends): what each student, the admin and newcomers do
/// while the servers are killed, and the set-up they share.
extension CrashDrillSlowTests {
    /// Four small classes (3 seats) at times that never conflict; their ids.
    static func makeSmallClasses(port: Int, admin: String) async throws -> [Int64] {
        var classes: [Int64] = []
        for (n, (days, start, end)) in [("MW", "0800", "0850"), ("MW", "0900", "0950"), ("TTH", "0800", "0850"), ("TTH", "0900", "0950")].enumerated() {
            let made = await Drill.send(
                port: port, "POST", "/v1/admin/registration/classes",
                body: #"{"term":"\#(term)","subject":"CS","course":"540","section":"D\#(n)","scheduleNumber":"3990\#(n)","seats":3,"#
                    + #""instructors":["A. TURING"],"meetings":[{"days":"\#(days)","start":"\#(start)","end":"\#(end)","building":"GMCS","room":"101"}]}"#,
                token: admin
            )
            classes.append(Int64(try #require(made?.object["id"] as? Int, "\(made?.status ?? 0) \(made?.body ?? "no answer")")))
        }
        return classes
    }

    /// The drill's students, signed up through the SDSU protocol (student n on `ports[n % count]`,
    /// as a load balancer would spread them); their bearer tokens.
    static func signUpStudents(ports: [Int]) async throws -> [String] {
        var tokens: [String] = []
        for n in 0..<students {
            let port = ports[n % ports.count]
            let added = await Drill.send(
                port: port, "POST", "/registration/addstudent",
                body: #"{"firstname":"Drill","lastname":"S\#(n)","redid":"\#(redID(n))","password":"\#(password)","email":"s\#(n)@sdsu.edu"}"#
            )
            #expect(added?.ok == "Student Added", "\(added?.body ?? "no answer")")
            tokens.append(try #require(await Drill.token(port: port, redID(n), password)))
        }
        return tokens
    }

    /// Every part of the load at once, until `target` stops; answers each student's model of
    /// their classes.
    static func startLoad(
        tokens: [String], classes: [Int64], admin: String, notices: NotificationDrill, target: Target
    ) -> Task<[Int: [Int64: Seat]], Never> {
        Task {
            await withTaskGroup(of: (Int, [Int64: Seat])?.self) { group in
                for (n, token) in tokens.enumerated() {
                    group.addTask { (n, await student(n, token: token, classes: classes, target: target)) }
                }
                group.addTask { await jobs(admin: admin, target: target); return nil }
                group.addTask { await signUpsAndReads(classes: classes, target: target); return nil }
                group.addTask {
                    await notices.scoreRounds(running: { target.running }, unexpected: { line in target.tally.withLock { $0.unexpected.append(line) } })
                    return nil
                }
                var models: [Int: [Int64: Seat]] = [:]
                for await result in group { if let (n, seats) = result { models[n] = seats } }
                return models
            }
        }
    }

    /// One student's load: registrations, drops and waitlists on `classes` (one at a time, as a
    /// student's app makes them), saved schedules and reads; returns what the answers say of each class.
    static func student(_ n: Int, token: String, classes: [Int64], target: Target) async -> [Int64: Seat] {
        var seats = Dictionary(uniqueKeysWithValues: classes.map { ($0, Seat.absent) })
        let who = credentials(redID(n))
        var saved = 0
        func sdsu(_ action: String, _ classID: Int64) async -> Drill.Reply? {
            await target.send("GET", "/registration/\(action)?\(who)&courseid=\(classID)")
        }
        while target.running {
            try? await Task.sleep(for: .milliseconds(Int.random(in: 5...25)))
            if target.port == 0 { continue }
            let roll = Int.random(in: 0..<10)
            if roll == 0 {
                saved += 1
                let name = "drill \(n)-\(saved)"
                let picked = classes.shuffled().prefix(Int.random(in: 1...classes.count))
                let reply = await target.send(
                    "POST", "/v1/me/schedules", body: #"{"name":"\#(name)","term":"\#(term)","classIds":[\#(picked.map(String.init).joined(separator: ","))]}"#,
                    token: token
                )
                if let reply, reply.status == 201, let id = reply.object["id"] as? Int {
                    target.tally.withLock { $0.schedules.append((Int64(id), name)) }
                }
                continue
            }
            if roll == 1 {
                if await target.send("GET", "/registration/studentclasses?\(who)") != nil { target.tally.withLock { $0.reads += 1 } }
                continue
            }
            let classID = classes.randomElement()!
            switch seats[classID]! {
            case .absent:
                guard let reply = await sdsu("registerclass", classID) else { seats[classID] = .unknown; continue }
                if reply.ok == "Course added" {
                    seats[classID] = .enrolled
                    target.tally.withLock { $0.added += 1 }
                } else if reply.error == "Course is full" {
                    guard let waited = await sdsu("waitlistclass", classID) else { seats[classID] = .unknown; continue }
                    if waited.ok == "Course added" {
                        seats[classID] = .waitlisted
                        target.tally.withLock { $0.waitlisted += 1 }
                    } else {
                        target.tally.withLock { $0.refused += 1 }
                    }
                } else {
                    // Refused (class limit, waitlist limit, busy): nothing changed.
                    target.tally.withLock { $0.refused += 1 }
                }
            case .enrolled:
                guard let reply = await sdsu("unregisterclass", classID) else { seats[classID] = .unknown; continue }
                if reply.ok == "Course dropped" {
                    seats[classID] = .absent
                    target.tally.withLock { $0.dropped += 1 }
                }
            case .waitlisted:
                guard let reply = await sdsu("unwaitlistclass", classID) else { seats[classID] = .unknown; continue }
                if reply.ok == "Course dropped" {
                    seats[classID] = .absent
                    target.tally.withLock { $0.unwaitlisted += 1 }
                }
            case .unknown:
                // A request that got no answer: find out by leaving the class, whatever it was.
                guard let reply = await sdsu("unregisterclass", classID) else { continue }
                if reply.ok == "Course dropped" {
                    seats[classID] = .absent
                    target.tally.withLock { $0.dropped += 1 }
                } else if reply.error == "Student not in course" {
                    guard let line = await sdsu("unwaitlistclass", classID) else { continue }
                    if line.ok == "Course dropped" {
                        seats[classID] = .absent
                        target.tally.withLock { $0.unwaitlisted += 1 }
                    } else if line.error == "Student not on waitlist" {
                        seats[classID] = .absent
                    }
                }
            }
        }
        return seats
    }

    /// Admin jobs, each with a key of its own.
    static func jobs(admin: String, target: Target) async {
        var n = 0
        while target.running {
            n += 1
            let reply = await target.send("POST", "/v1/admin/jobs", body: #"{"kind":"diagnostics.noop","uniqueKey":"drill-\#(n)"}"#, token: admin)
            if let reply, reply.status == 201, let id = reply.object["id"] as? Int {
                target.tally.withLock { $0.jobs.append(Int64(id)) }
            } else if let reply, reply.status == 200 {
                target.tally.withLock { $0.unexpected.append("job drill-\(n) answered 200: a live job already had its key") }
            }
            try? await Task.sleep(for: .milliseconds(60))
        }
    }

    /// New students signing up through the SDSU protocol, and catalog reads.
    static func signUpsAndReads(classes: [Int64], target: Target) async {
        var n = 1000
        while target.running {
            n += 1
            let redID = redID(n)
            let reply = await target.send(
                "POST", "/registration/addstudent",
                body: #"{"firstname":"Drill","lastname":"N\#(n)","redid":"\#(redID)","password":"\#(password)","email":"d\#(n)@sdsu.edu"}"#
            )
            if reply?.ok == "Student Added" { target.tally.withLock { $0.signUps.append(redID) } }
            for classID in classes where target.running {
                if await target.send("GET", "/registration/classdetails?classid=\(classID)") != nil { target.tally.withLock { $0.reads += 1 } }
            }
            try? await Task.sleep(for: .milliseconds(150))
        }
    }
}
