import CPNG
import Foundation
import Signals

/// An 8-bit RGB picture in memory, drawn into pixel by pixel and written as
/// PNG with libpng's simplified API (no setjmp/longjmp reaches Swift).
struct RGBImage {
    let width: Int
    let height: Int
    private(set) var pixels: [UInt8]

    init(width: Int, height: Int, fill: PowerColorMap.RGB) {
        self.width = width
        self.height = height
        pixels = [UInt8](repeating: 0, count: width * height * 3)
        for i in 0..<(width * height) {
            pixels[3 * i] = fill.red
            pixels[3 * i + 1] = fill.green
            pixels[3 * i + 2] = fill.blue
        }
    }

    /// Sets one pixel; outside the picture does nothing.
    @inline(__always)
    mutating func set(_ x: Int, _ y: Int, _ color: PowerColorMap.RGB) {
        guard x >= 0, y >= 0, x < width, y < height else { return }
        let i = 3 * (y * width + x)
        pixels[i] = color.red
        pixels[i + 1] = color.green
        pixels[i + 2] = color.blue
    }

    func pixel(_ x: Int, _ y: Int) -> PowerColorMap.RGB {
        let i = 3 * (y * width + x)
        return PowerColorMap.RGB(red: pixels[i], green: pixels[i + 1], blue: pixels[i + 2])
    }

    /// Draws `text` with its top-left corner at (x, y) in the bitmap font.
    mutating func draw(_ text: String, x: Int, y: Int, color: PowerColorMap.RGB) {
        var left = x
        for character in text {
            let rows = BitmapFont.rows(character)
            for (row, bits) in rows.enumerated() {
                for column in 0..<BitmapFont.glyphWidth where bits & (0x10 >> UInt8(column)) != 0 {
                    set(left + column, y + row, color)
                }
            }
            left += BitmapFont.advance
        }
    }

    /// Writes the picture as an 8-bit RGB PNG.
    func writePNG(path: String) throws {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        image.width = UInt32(width)
        image.height = UInt32(height)
        image.format = UInt32(PNG_FORMAT_RGB)
        let ok = pixels.withUnsafeBytes { raw in
            png_image_write_to_file(&image, path, 0, raw.baseAddress, Int32(width * 3), nil)
        }
        guard ok != 0 else {
            let message = withUnsafeBytes(of: image.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            png_image_free(&image)
            throw CaptureError(file: path, "cannot write the PNG: \(message)")
        }
    }

    /// Reads an 8-bit RGB PNG (tests look at what export wrote).
    static func readPNG(path: String) throws -> RGBImage {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        guard png_image_begin_read_from_file(&image, path) != 0 else {
            throw CaptureError(file: path, "not a PNG libpng can read")
        }
        image.format = UInt32(PNG_FORMAT_RGB)
        var picture = RGBImage(width: Int(image.width), height: Int(image.height),
                               fill: PowerColorMap.RGB(red: 0, green: 0, blue: 0))
        let ok = picture.pixels.withUnsafeMutableBytes { raw in
            png_image_finish_read(&image, nil, raw.baseAddress, Int32(picture.width * 3), nil)
        }
        guard ok != 0 else {
            png_image_free(&image)
            throw CaptureError(file: path, "cannot decode the PNG")
        }
        return picture
    }
}
