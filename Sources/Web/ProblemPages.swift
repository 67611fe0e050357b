import Foundation

/// The HTML pages behind the problem type links: one short page per type and the list of all,
/// rendered once from the ``ProblemCatalog`` (text escaped; no script, one same-origin stylesheet).
struct ProblemPages: Sendable {
    /// Pages by type, and the list page.
    let pages: [String: Data]
    let index: Data

    init(catalog: ProblemCatalog) {
        var pages: [String: Data] = [:]
        for entry in catalog.entries {
            pages[entry.type] = Data(Self.page(for: entry).utf8)
        }
        self.pages = pages
        index = Data(Self.indexPage(catalog).utf8)
    }

    static func page(for entry: ProblemCatalog.Entry) -> String {
        let statuses = (entry.statuses ?? [entry.status]).map(String.init).joined(separator: ", ")
        return document(
            title: "\(entry.title): problem type \(entry.type)",
            body: """
                <p><a href="/problems">All problem types</a> · <a href="/docs">API reference</a></p>
                <h1>\(escape(entry.title))</h1>
                <dl>
                  <dt>Type</dt><dd><code>/problems/\(escape(entry.type))</code></dd>
                  <dt>Status</dt><dd>\(escape(statuses))</dd>
                </dl>
                <h2>What it means</h2>
                <p>\(escape(entry.meaning))</p>
                <h2>What to do</h2>
                <p>\(escape(entry.action))</p>
                <p>Every error of the v1 API is an RFC 9457 problem (<code>application/problem+json</code>)
                with <code>type</code>, <code>title</code>, <code>status</code> and <code>detail</code>;
                switch on <code>type</code>, show <code>detail</code>.</p>
                """
        )
    }

    static func indexPage(_ catalog: ProblemCatalog) -> String {
        let items = catalog.entries.map { entry in
            #"<li><a href="/problems/\#(escape(entry.type))"><code>\#(escape(entry.type))</code></a>: \#(escape(entry.title)) (\#(entry.status))</li>"#
        }.joined(separator: "\n")
        return document(
            title: "Problem types",
            body: """
                <p><a href="/docs">API reference</a></p>
                <h1>Problem types</h1>
                <p>Each error of the v1 API names one of these types in its <code>type</code> member.</p>
                <ul class="problem-list">
                \(items)
                </ul>
                """
        )
    }

    private static func document(title: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(escape(title)) · Campus Gateway</title>
        <link rel="stylesheet" href="/docs/reference.css">
        </head>
        <body>
        <main class="problem-page">
        \(body)
        </main>
        </body>
        </html>

        """
    }

    /// Text made safe for HTML element content and double-quoted attributes.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}
