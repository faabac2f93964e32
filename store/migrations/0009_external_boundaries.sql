CREATE TABLE "boundary_origins" (
	"boundary_id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"provider" text NOT NULL,
	"external_id" text NOT NULL,
	"licence" text,
	"attribution" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "boundary_origins" ADD CONSTRAINT "boundary_origins_boundary_id_boundaries_id_fk" FOREIGN KEY ("boundary_id") REFERENCES "public"."boundaries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "boundary_origins" ADD CONSTRAINT "boundary_origins_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "boundary_origins_company_idx" ON "boundary_origins" USING btree ("company_id");