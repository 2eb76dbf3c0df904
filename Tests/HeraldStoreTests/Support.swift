import Foundation
import HeraldTestSupport

enum HeraldStoreTestsSupport {
    static let migrationsDirectory = TestDatabase.migrationsDirectory
}
