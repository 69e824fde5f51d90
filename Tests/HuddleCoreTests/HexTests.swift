import HuddleCore
import Testing

@Suite struct HexTests {
    @Test func twoLowercaseDigitsAByteWithLeadingZeros() {
        #expect([UInt8]([0x00, 0x0F, 0xA0, 0xFF, 0x42]).lowercaseHex == "000fa0ff42")
        #expect([UInt8]().lowercaseHex == "")
        #expect([UInt8](0...255).lowercaseHex.count == 512)
        #expect(Array("Hi".utf8)[...].lowercaseHex == "4869")
    }
}
