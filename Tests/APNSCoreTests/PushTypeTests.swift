import APNSCore
import Testing

@Suite struct PushTypeTests {
    @Test(arguments: [
        (PushType.alert, "alert", ""),
        (.background, "background", ""),
        (.location, "location", ".location-query"),
        (.voip, "voip", ".voip"),
        (.complication, "complication", ".complication"),
        (.fileprovider, "fileprovider", ".pushkit.fileprovider"),
        (.mdm, "mdm", ""),
        (.liveactivity, "liveactivity", ".push-type.liveactivity"),
        (.pushtotalk, "pushtotalk", ".voip-ptt"),
    ])
    func eachPushTypeNamesItsHeaderValueAndTopicSuffix(type: PushType, header: String, suffix: String) {
        #expect(type.rawValue == header)
        #expect(type.headerValue == header)
        #expect(type.topicSuffix == suffix)
        #expect(type.topic(forBundleID: "com.example.app") == "com.example.app" + suffix)
    }

    @Test func allNinePushTypesExist() {
        #expect(PushType.allCases.count == 9)
    }

    @Test func onlyVoIPGetsTheLargerPayloadLimit() {
        for type in PushType.allCases {
            #expect(type.maximumPayloadBytes == (type == .voip ? 5120 : 4096))
        }
    }

    @Test func backgroundDefaultsToPowerAwarePriority() {
        #expect(PushType.background.defaultPriority == .powerAware)
        #expect(PushType.alert.defaultPriority == .immediate)
    }

    @Test func prioritiesUseAPNsNumbers() {
        #expect(Priority.immediate.rawValue == 10)
        #expect(Priority.powerAware.rawValue == 5)
        #expect(Priority.lowest.rawValue == 1)
        #expect(Priority.allCases.map(\.headerValue) == ["10", "5", "1"])
    }
}
