import Foundation
import Mustache
import Testing

@Suite("Template libraries")
struct LibraryTests {
    private func loadError(_ files: [String: String]) throws -> (MustacheError, String)? {
        let directory = try TemporaryDirectory(files: files)
        do {
            _ = try MustacheLibrary(directory: directory.url)
            return nil
        } catch {
            return (error, directory.url.path)
        }
    }

    @Test func loads_nested_templates_and_ignores_other_files() throws {
        let directory = try TemporaryDirectory(files: [
            "page.mustache": "<ul>\n{{#items}}\n  {{>partials/item}}\n{{/items}}\n</ul>\n",
            "partials/item.mustache": "<li>{{name}}</li>\n",
            "partials/deeper/badge.mustache": "[{{label}}]",
            "README.md": "{{#broken",
            "notes.txt": "{{/nope}}",
            "partials/item.mustache.bak": "{{",
        ])
        let library = try MustacheLibrary(directory: directory.url)
        #expect(library.templateNames == ["page", "partials/deeper/badge", "partials/item"])
        #expect(library.template(named: "partials/item")?.name == "partials/item")
        #expect(library.template(named: "README") == nil)
        let output = try library.render(["items": [["name": "A"], ["name": "B&C"]]], template: "page")
        #expect(output == "<ul>\n  <li>A</li>\n  <li>B&amp;C</li>\n</ul>\n")
    }

    @Test func renders_into_reusable_buffers() throws {
        let library = try MustacheLibrary(templates: ["greeting": "Hello {{name}}!"])
        var bytes: [UInt8] = []
        try library.render(["name": "Ada"], template: "greeting", into: &bytes)
        try library.render(["name": "Bob"], template: "greeting", into: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "Hello Ada!Hello Bob!")
        var text = "> "
        try library.render(["name": "Eve"], template: "greeting", into: &text)
        #expect(text == "> Hello Eve!")
    }

    @Test func inheritance_across_files() throws {
        let directory = try TemporaryDirectory(files: [
            "layouts/base.mustache":
                "<title>{{$title}}Site{{/title}}</title>\n<main>\n{{$content}}\n{{/content}}\n</main>\n",
            "page.mustache":
                "{{<layouts/base}}\n{{$title}}{{heading}}{{/title}}\n{{$content}}\n  <h1>{{heading}}</h1>\n{{/content}}\n{{/layouts/base}}\n",
        ])
        let library = try MustacheLibrary(directory: directory.url)
        let output = try library.render(["heading": "News"], template: "page")
        #expect(output == "<title>News</title>\n<main>\n<h1>News</h1>\n</main>\n")
    }

    @Test func missing_partial_is_a_load_error() throws {
        let (error, root) = try #require(
            try loadError([
                "page.mustache": "<ul>\n{{#items}}\n  {{>partials/itme}}\n{{/items}}\n</ul>\n",
                "partials/item.mustache": "<li>{{name}}</li>\n",
            ]))
        #expect(error.kind == .missingTemplate("partials/itme"))
        #expect(error.templateName == "page")
        #expect(error.path == "\(root)/page.mustache")
        #expect(error.line == 3)
        #expect(error.column == 3)
        #expect(error.description == "\(root)/page.mustache:3:3: missing partial 'partials/itme'")
    }

    @Test func missing_parent_is_a_load_error() throws {
        let (error, root) = try #require(
            try loadError([
                "pages/home.mustache": "{{! home }}\n{{<layout}}{{$body}}hi{{/body}}{{/layout}}",
                "layout.mustach": "typo in the extension",
            ]))
        #expect(error.kind == .missingTemplate("layout"))
        #expect(error.templateName == "pages/home")
        #expect(error.description == "\(root)/pages/home.mustache:2:1: missing parent 'layout'")
    }

    @Test func dynamic_names_are_not_checked_at_load_time() throws {
        let library = try MustacheLibrary(templates: ["page": "[{{>*kind}}]", "text": "T"])
        #expect(try library.render(["kind": "text"], template: "page") == "[T]")
        #expect(try library.render(["kind": "nothing"], template: "page") == "[]")
    }

    @Test func syntax_error_reports_the_file_path() throws {
        let (error, root) = try #require(
            try loadError([
                "good.mustache": "fine",
                "partials/broken.mustache": "line 1\nline 2 {{#items}}\n",
            ]))
        #expect(error.kind == .syntax)
        #expect(error.path == "\(root)/partials/broken.mustache")
        #expect(error.templateName == "partials/broken")
        #expect(error.description == "\(root)/partials/broken.mustache:2:8: unclosed section 'items'")
    }

    @Test func relative_directory_paths_appear_as_given() throws {
        let directory = try TemporaryDirectory(files: ["a.mustache": "{{/x}}"])
        let relative = URL(
            fileURLWithPath: directory.url.lastPathComponent,
            relativeTo: directory.url.deletingLastPathComponent())
        #expect {
            try MustacheLibrary(directory: relative)
        } throws: { error in
            (error as? MustacheError)?.description.hasPrefix(
                "\(directory.url.lastPathComponent)/a.mustache:1:1:")
                == true
        }
    }

    @Test func missing_directory_is_an_error() {
        #expect(throws: MustacheError.self) {
            try MustacheLibrary(
                directory: URL(fileURLWithPath: "/nonexistent/templates-\(UUID().uuidString)"))
        }
    }

    @Test func dictionary_libraries_are_strict_by_default() throws {
        #expect {
            try MustacheLibrary(templates: ["page": "a\n  b {{>nav}}"])
        } throws: { error in
            let error = error as? MustacheError
            return error?.description == "page:2:5: missing partial 'nav'"
                && error?.kind == .missingTemplate("nav")
        }
    }

    @Test func lenient_library_renders_missing_partials_as_empty() throws {
        let library = try MustacheLibrary(
            templates: ["page": "[{{>nav}}]({{<base}}{{/base}})"], missingTemplates: .renderEmpty)
        #expect(try library.render([:], template: "page") == "[]()")
    }

    @Test func plain_template_rendering_follows_the_spec_for_missing_partials() throws {
        let template = try MustacheTemplate(string: "[{{>missing}}]")
        #expect(template.render([:]) == "[]")
        #expect(template.referencedTemplateNames == ["missing"])
    }

    @Test func unknown_template_name_throws() throws {
        let library = try MustacheLibrary(templates: ["page": "x"])
        #expect(throws: MustacheError(kind: .unknownTemplate("pgae"), message: "unknown template 'pgae'")) {
            try library.render([:], template: "pgae")
        }
    }

    @Test func unbounded_recursion_stops_instead_of_crashing() throws {
        let library = try MustacheLibrary(templates: ["loop": "x{{>loop}}"])
        let output = try library.render([:], template: "loop")
        #expect(output.count > 10)
        #expect(output.allSatisfy { $0 == "x" })
    }

    @Test func templates_render_concurrently() async throws {
        let library = try MustacheLibrary(templates: [
            "page": "{{#items}}{{>row}}{{/items}}", "row": "<{{n}}>",
        ])
        let results = await withTaskGroup(of: (Int, String).self) { group in
            for worker in 0..<8 {
                group.addTask {
                    let items = (0..<50).map {
                        MustacheValue.object(["n": .number(MustacheNumber($0 * worker))])
                    }
                    return (worker, (try? library.render(["items": .list(items)], template: "page")) ?? "")
                }
            }
            var collected: [Int: String] = [:]
            for await (worker, output) in group {
                collected[worker] = output
            }
            return collected
        }
        for worker in 0..<8 {
            let expected = (0..<50).map { "<\($0 * worker)>" }.joined()
            #expect(results[worker] == expected)
        }
    }
}
