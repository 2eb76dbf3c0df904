import HeraldCore
import Testing

@testable import HeraldConsole

/// `multipart/form-data` as browsers send it, and the bodies that are not.
@Suite struct MultipartFormTests {
    let boundary = "----WebKitFormBoundaryx8Jd2"

    func body(_ parts: [String], end: Bool = true) -> [UInt8] {
        var text = parts.map { "--\(boundary)\r\n\($0)\r\n" }.joined()
        if end { text += "--\(boundary)--\r\n" }
        return Array(text.utf8)
    }

    @Test func theBoundaryComesFromTheContentTypeOnly() {
        #expect(MultipartForm.boundary(contentType: "multipart/form-data; boundary=\(boundary)") == boundary)
        #expect(MultipartForm.boundary(contentType: "Multipart/Form-Data; charset=utf-8; boundary=\"a b\"") == "a b")
        #expect(MultipartForm.boundary(contentType: "application/x-www-form-urlencoded") == nil)
        #expect(MultipartForm.boundary(contentType: "multipart/form-data") == nil)
        #expect(MultipartForm.boundary(contentType: "multipart/form-data; boundary=" + String(repeating: "x", count: 71)) == nil)
    }

    @Test func fieldsAndFilesAreReadWithTheirBytesIntact() throws {
        let key: [UInt8] = [0x00, 0x0D, 0x0A, 0x2D, 0x2D, 0xFF, 0xFE]
        var bytes = body(
            [
                "Content-Disposition: form-data; name=\"keyID\"\r\n\r\nABC123DEFG",
                "Content-Disposition: form-data; name=\"say %22hi%22\"\r\n\r\nzwei\r\nZeilen",
            ], end: false)
        bytes += Array(
            "--\(boundary)\r\nContent-Disposition: form-data; name=\"p12\"; filename=\"push.p12\"\r\nContent-Type: application/x-pkcs12\r\n\r\n".utf8)
        bytes += key + Array("\r\n--\(boundary)--\r\n".utf8)
        let form = FormData(try MultipartForm(bytes, boundary: boundary))
        #expect(form["keyID"] == "ABC123DEFG")
        #expect(form.raw("say \"hi\"") == "zwei\r\nZeilen")
        #expect(form.file("p12")?.filename == "push.p12" && form.file("p12")?.bytes == key)
        #expect(form.file("keyID") == nil)
    }

    @Test func aFileInputLeftEmptySendsNoFile() throws {
        let form = FormData(
            try MultipartForm(
                body(["Content-Disposition: form-data; name=\"p8\"; filename=\"\"\r\nContent-Type: application/octet-stream\r\n\r\n"]),
                boundary: boundary))
        #expect(form.file("p8") == nil)
    }

    @Test(arguments: [
        ("no boundary at all", Array("keyID=ABC".utf8)),
        ("a part that never ends", Array("--B\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nvalue".utf8)),
        ("a part without headers", Array("--B\r\nContent-Disposition: form-data; name=\"a\"".utf8)),
        ("a part without a name", Array("--B\r\nContent-Disposition: form-data\r\n\r\nx\r\n--B--".utf8)),
        (
            "a field that is not UTF-8",
            Array("--B\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n".utf8) + [0xC3, 0x28] + Array("\r\n--B--".utf8)
        ),
        ("garbage after the boundary", Array("--BX\r\n".utf8)),
    ])
    func malformedBodiesAreRefusedWithAReason(_ case: (String, [UInt8])) {
        #expect(throws: ValidationError.self, "\(`case`.0)") { try MultipartForm(`case`.1, boundary: "B") }
    }
}
