CREATE TABLE "external_links" (
	"company_id" uuid NOT NULL,
	"vendor" text NOT NULL,
	"kind" text NOT NULL,
	"external_id" text NOT NULL,
	"local_id" uuid NOT NULL,
	"synced_version" integer NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "external_links_company_id_vendor_kind_external_id_pk" PRIMARY KEY("company_id","vendor","kind","external_id")
);
--> statement-breakpoint
ALTER TABLE "external_links" ADD CONSTRAINT "external_links_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;