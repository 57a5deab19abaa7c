import Mustache
import Testing

@Suite("Mustache spec")
struct SpecTests {
    @Test("all spec files load with the expected number of cases")
    func caseCount() throws {
        let cases = try SpecCase.loadAll()
        #expect(cases.count == 184)
        #expect(SpecCase.all.count == 184)
        #expect(Set(cases.map(\.file)) == Set(SpecCase.files))
    }

    @Test(arguments: SpecCase.all)
    func specCase(_ specCase: SpecCase) throws {
        let template = try MustacheTemplate(string: specCase.template, name: "template")
        var partials: [String: MustacheTemplate] = [:]
        for (name, source) in specCase.partials {
            partials[name] = try MustacheTemplate(string: source, name: name)
        }
        let output = template.render(specCase.data, partials: partials)
        #expect(output == specCase.expected, "template: \(specCase.template.debugDescription)")
    }

    @Test(arguments: SpecCase.all)
    func specCaseThroughLenientLibrary(_ specCase: SpecCase) throws {
        var sources = specCase.partials
        sources["__main__"] = specCase.template
        let library = try MustacheLibrary(templates: sources, missingTemplates: .renderEmpty)
        #expect(try library.render(specCase.data, template: "__main__") == specCase.expected)
    }
}
